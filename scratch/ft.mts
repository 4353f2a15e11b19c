import { detectType } from '../src/uploads/inspect.ts';
import { contentBlock } from '../bench/http.ts';
const blk = contentBlock(10240);
const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n%âãÏÓ\n1 0 obj\n<< /Type /Catalog >>\nendobj\n'), Buffer.alloc(10000, 32)]);
for (const [name, b] of [['bench block', blk], ['pdf', pdf], ['zeros', Buffer.alloc(10240)]] as const) {
  for (let i = 0; i < 200; i++) await detectType(b);
  const t = process.hrtime.bigint();
  for (let i = 0; i < 2000; i++) await detectType(b);
  console.log(name, await detectType(b), Number(process.hrtime.bigint() - t) / 1e6 / 2000, 'ms');
}

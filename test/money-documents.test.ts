/**
 * Money documents (interface.md, "Money documents"), over real HTTP on both databases: the shop's
 * settings, prices on lines and the customer's state, the totals (figures computed by hand, half a
 * paisa included, intra- and inter-state), the PI's PDF read back as text, the tax invoice's every
 * refusal in order, its numbering (the financial year's boundary, after a withdrawal, 20 at once,
 * and on PostgreSQL 20 at once across two instances), and the register with its CSV.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { gstinCheckCharacter } from '../src/domain/gstin.js';
import { hasWordLetters, pdfText } from './helpers/pdf-text.js';
import { type Someone, activityOf, startJobService } from './helpers/projects.js';
import { type Client, type TestService, startTestService, testDialect } from './helpers/service.js';

const gstin = (first14: string) => first14 + gstinCheckCharacter(first14)!;
const SHOP_GSTIN = gstin('29AAGCB7383J1Z'); // Karnataka
const KA_CUSTOMER = gstin('29AABCK1234L1Z');
const MH_CUSTOMER = gstin('27AAPFU0939F1Z'); // Maharashtra

let svc: TestService;
let admin: Someone;
let poc: Someone;
let clientUser: Someone;

// 20:00 UTC on 26 November is 27 November in Kolkata.
before(async () => {
  ({ svc, admin, poc, clientUser } = await startJobService(() => '2026-11-26T20:00:00.000Z'));
});
after(() => svc?.close());

async function bytesOf(client: Client, path: string): Promise<{ status: number; type: string | null; disposition: string | null; bytes: Buffer }> {
  const res = await fetch(new URL(path, client.baseUrl), { headers: client.cookie ? { cookie: client.cookie } : {} });
  return { status: res.status, type: res.headers.get('content-type'), disposition: res.headers.get('content-disposition'), bytes: Buffer.from(await res.arrayBuffer()) };
}

async function customer(body: Record<string, unknown>): Promise<{ id: string; stateCode: string | null }> {
  const res = await admin.client.post('/api/customers', { name: `Customer ${Math.random().toString(36).slice(2, 8)}`, ...body });
  assert.equal(res.status, 201, res.text);
  return res.body;
}

/** A project in `status`, for `customerId`, with these lines (set by an ADMIN, who may edit at any time). */
async function pricedProject(status: 'APPROVED' | 'DISPATCHED' | 'DELIVERED', customerId: string | null, items: Record<string, unknown>[]) {
  const p = await svc.createProject(poc.user.id, { status, piStatus: 'VERIFIED', customerId });
  const res = await admin.client.patch(`/api/projects/${p.id}`, { items });
  assert.equal(res.status, 200, res.text);
  return res.body;
}

const issue = (who: Someone, id: string, json?: unknown) => who.client.request('POST', `/api/projects/${id}/invoice`, json === undefined ? {} : { json });

const LINES = [
  { description: 'Visiting cards 350 gsm', quantity: 1000, unitPrice: 250, hsnSac: '4911', gstRate: 18 },
  { description: 'Sample print शादी कार्ड', quantity: 1, unitPrice: 10, hsnSac: '998912', gstRate: 5 },
];

describe('shop settings', () => {
  test('everyone signed in reads them (INV by default); only an ADMIN changes them; a bad value is a 400 naming it and changes nothing', async () => {
    const read = await clientUser.client.get('/api/settings/shop');
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(read.body, { name: null, address: null, gstin: null, phone: null, email: null, bankDetails: null, invoicePrefix: 'INV', updatedAt: null });
    assert.equal((await new (await import('./helpers/service.js')).Client(svc.url).get('/api/settings/shop')).status, 401);
    assert.deepEqual([(await poc.client.patch('/api/settings/shop', { name: 'Mine' })).status], [403]);
    const cases: [Record<string, unknown>, string][] = [
      [{ invoicePrefix: 'IN/V' }, "invoicePrefix must be 1 to 10 letters, digits or '-'"],
      [{ invoicePrefix: '' }, "invoicePrefix must be 1 to 10 letters, digits or '-'"],
      [{ invoicePrefix: 'ABCDEFGHIJK' }, "invoicePrefix must be 1 to 10 letters, digits or '-'"],
      [{ gstin: '29AAGCB7383J1Z5' }, 'GSTIN check character does not match: please check the number'],
      [{ gstin: 'nope' }, 'GSTIN must be 15 characters: 2 digits, a 10-character PAN, an entity character, Z and a check character'],
      [{ email: 'not-an-address' }, 'Email must be a full address, like name@example.com'],
      [{ name: 'x'.repeat(201) }, 'Name must be at most 200 characters'],
      [{ name: 'Fine', colour: 'red' }, ''],
    ];
    for (const [body, error] of cases) {
      const res = await admin.client.patch('/api/settings/shop', body);
      assert.equal(res.status, 400, JSON.stringify(body));
      if (error) assert.deepEqual(res.body, { error }, JSON.stringify(body));
    }
    assert.equal((await admin.client.get('/api/settings/shop')).body.name, null, 'nothing changed');
    const ok = await admin.client.patch('/api/settings/shop', { name: ' Sharma Printers ', address: '12 MG Road, Bengaluru 560001', bankDetails: 'HDFC Bank, A/c 50200012345678, IFSC HDFC0001234', invoicePrefix: 'INV' });
    assert.equal(ok.status, 200, ok.text);
    assert.equal(ok.body.name, 'Sharma Printers');
    assert.equal(ok.body.gstin, null);
  });
});

describe('prices on lines, the customer state, the totals', () => {
  test('bad line prices are refused naming the line and the field', async () => {
    const p = await svc.createProject(poc.user.id, { status: 'REQUESTED' });
    const cases: [Record<string, unknown>, string][] = [
      [{ unitPrice: -1 }, 'Line 1 unitPrice must be at least 0'],
      [{ unitPrice: 1.5 }, "Line 1 unitPrice must be a whole number of the currency's minor units (paise for INR)"],
      [{ unitPrice: '100' }, "Line 1 unitPrice must be a whole number of the currency's minor units (paise for INR)"],
      [{ hsnSac: '491' }, 'Line 1 hsnSac must be 4 to 8 digits'],
      [{ hsnSac: 4911 }, 'Line 1 hsnSac must be 4 to 8 digits'],
      [{ gstRate: 7 }, 'Line 1 gstRate must be one of 0, 5, 12, 18, 28'],
      [{ gstRate: '18' }, 'Line 1 gstRate must be one of 0, 5, 12, 18, 28'],
    ];
    for (const [prices, error] of cases) {
      const res = await poc.client.patch(`/api/projects/${p.id}/details`, { items: [{ description: 'x', quantity: 1, ...prices }] });
      assert.deepEqual([res.status, res.body], [400, { error }], JSON.stringify(prices));
    }
  });

  test("a customer's state is its GSTIN's: filled in, and another is refused", async () => {
    assert.equal((await customer({ gstin: MH_CUSTOMER })).stateCode, '27');
    const wrong = await admin.client.post('/api/customers', { name: 'Wrong state', gstin: MH_CUSTOMER, stateCode: '29' });
    assert.deepEqual([wrong.status, wrong.body], [400, { error: "stateCode must be 27, the GSTIN's state code" }]);
    const noGstin = await customer({ stateCode: '07' });
    assert.equal(noGstin.stateCode, '07');
    const bad = await admin.client.patch(`/api/customers/${noGstin.id}`, { stateCode: '7' });
    assert.deepEqual([bad.status, bad.body], [400, { error: 'stateCode must be two digits, the GST state code' }]);
  });

  test('totals by hand: inter-state IGST, intra-state CGST and SGST, half a paisa rounded up per line; null until every line is priced', async () => {
    await admin.client.patch('/api/settings/shop', { gstin: SHOP_GSTIN });
    const mh = await customer({ gstin: MH_CUSTOMER });
    const inter = await pricedProject('APPROVED', mh.id, LINES);
    // 1000 × ₹2.50 = ₹2,500.00 at 18 %: ₹450.00; 1 × ₹0.10 at 5 %: 0.5 paisa → 1 paisa.
    assert.deepEqual(inter.totals, {
      currency: 'INR',
      taxable: 250_010,
      cgst: 0,
      sgst: 0,
      igst: 45_001,
      total: 295_011,
      lines: [
        { id: inter.items[0].id, taxable: 250_000, cgst: 0, sgst: 0, igst: 45_000 },
        { id: inter.items[1].id, taxable: 10, cgst: 0, sgst: 0, igst: 1 },
      ],
    });
    const ka = await customer({ gstin: KA_CUSTOMER });
    const intra = await pricedProject('APPROVED', ka.id, [{ description: 'a', quantity: 1, unitPrice: 20, gstRate: 5 }, { description: 'b', quantity: 3, unitPrice: 333, gstRate: 12 }]);
    // 20 × 2.5 % = 0.5 → 1 each; 999 × 6 % = 59.94 → 60 each.
    assert.deepEqual([intra.totals.cgst, intra.totals.sgst, intra.totals.igst, intra.totals.total], [61, 61, 0, 1141]);
    const unpriced = await pricedProject('APPROVED', ka.id, [{ description: 'a', quantity: 1, unitPrice: 20 }]);
    assert.equal(unpriced.totals, null);
    assert.equal(unpriced.invoice, null);
  });
});

describe('the PI as a PDF', () => {
  test('read back: the shop, the customer with its GSTIN, place of supply, lines, totals in Indian grouping, the total in words, the bank details', async () => {
    const mh = await customer({ gstin: MH_CUSTOMER, billingAddress: 'Plot 12, MIDC, Pune 411019' });
    const p = await pricedProject('APPROVED', mh.id, [...LINES, { description: 'Catalogue', quantity: 50, unitPrice: 2_49_990, hsnSac: '4901', gstRate: 12 }]);
    const res = await bytesOf(poc.client, `/api/projects/${p.id}/pi.pdf`);
    assert.equal(res.status, 200);
    assert.equal(res.type, 'application/pdf');
    assert.equal(res.disposition, `inline; filename="pi-${p.id}.pdf"`);
    const text = await pdfText(res.bytes);
    // taxable 2,500.00 + 0.10 + 1,24,995.00 = 1,27,495.10; IGST 450.00 + 0.01 + 14,999.40 = 15,449.41; total 1,42,944.51.
    for (const want of ['PROFORMA INVOICE', 'Sharma Printers', SHOP_GSTIN, MH_CUSTOMER, 'Maharashtra (27)', 'Visiting cards 350 gsm', '4911', '998912', '4901', '1,27,495.10', '15,449.41', '1,42,944.51', 'IGST', 'HDFC0001234', 'Pune 411019']) {
      assert.ok(text.includes(want), `${want} in ${text}`);
    }
    assert.ok(text.replace(/\s+/g, ' ').includes('One Lakh Forty-Two Thousand Nine Hundred Forty-Four Rupees and Fifty-One Paise Only'), text);
    assert.ok(hasWordLetters(text, 'शादी') && hasWordLetters(text, 'कार्ड'), 'Devanagari found');
  });

  test('whoever may see the project (a CLIENT of its customer too); anyone else 404; no totals 409', async () => {
    const mh = await customer({ gstin: MH_CUSTOMER });
    const p = await pricedProject('APPROVED', mh.id, LINES);
    assert.equal((await bytesOf(clientUser.client, `/api/projects/${p.id}/pi.pdf`)).status, 404);
    await admin.client.patch(`/api/team/${clientUser.user.id}`, { customerId: mh.id });
    assert.equal((await bytesOf(clientUser.client, `/api/projects/${p.id}/pi.pdf`)).status, 200);
    const unpriced = await pricedProject('APPROVED', mh.id, [{ description: 'a', quantity: 1 }]);
    const res = await poc.client.get(`/api/projects/${unpriced.id}/pi.pdf`);
    assert.deepEqual([res.status, res.body], [409, { error: 'Every line needs a price and a GST rate' }]);
  });
});

describe('the tax invoice', () => {
  test('every refusal in order, with its exact message', async () => {
    const mh = await customer({ gstin: MH_CUSTOMER });
    const approved = await pricedProject('APPROVED', mh.id, LINES);
    const dispatched = await pricedProject('DISPATCHED', mh.id, LINES);
    assert.deepEqual([(await issue(poc, dispatched.id)).status], [403]);
    const early = await issue(admin, approved.id, { invoiceDate: '2099-01-01' });
    assert.deepEqual([early.status, early.body], [400, { error: 'Invoice can only be uploaded after dispatch' }]);
    const future = await issue(admin, dispatched.id, { invoiceDate: '2026-11-28' });
    assert.deepEqual([future.status, future.body], [400, { error: 'invoiceDate must not be in the future' }]);
    const bad = await issue(admin, dispatched.id, { invoiceDate: '2026-02-30' });
    assert.deepEqual([bad.status, bad.body], [400, { error: 'invoiceDate must be a real date written YYYY-MM-DD' }]);
    const noCustomer = await pricedProject('DISPATCHED', null, LINES);
    assert.deepEqual((await issue(admin, noCustomer.id)).body, { error: 'The project has no customer' });
    const unpriced = await pricedProject('DELIVERED', mh.id, [{ description: 'a', quantity: 1, unitPrice: 5 }]);
    const noTotals = await issue(admin, unpriced.id);
    assert.deepEqual([noTotals.status, noTotals.body], [409, { error: 'Every line needs a price and a GST rate' }]);
    await admin.client.patch('/api/settings/shop', { gstin: null });
    const noGstin = await issue(admin, dispatched.id);
    assert.deepEqual([noGstin.status, noGstin.body], [409, { error: "The shop's GSTIN is not set" }]);
    await admin.client.patch('/api/settings/shop', { gstin: SHOP_GSTIN });
    assert.equal((await issue(admin, 'no-such-project')).status, 404);
    assert.equal((await admin.client.get('/api/invoices')).body.items.length, 0, 'no refusal issued a number');
  });

  test('numbered per financial year from 1; stored as the INVOICE document like an upload; a second is 409; after a withdrawal the next number', async () => {
    const mh = await customer({ gstin: MH_CUSTOMER, billingAddress: 'Pune' });
    const p = await pricedProject('DISPATCHED', mh.id, LINES);
    const first = await issue(admin, p.id, { invoiceDate: '2026-03-31' });
    assert.equal(first.status, 201, first.text);
    assert.deepEqual([first.body.number, first.body.date, first.body.total], ['INV/2025-26/0001', '2026-03-31', 295_011]);
    assert.deepEqual([first.body.file.type, first.body.file.contentType, first.body.file.filename, first.body.file.uploadedById], ['INVOICE', 'application/pdf', 'INV-2025-26-0001.pdf', admin.user.id]);
    const again = await issue(admin, p.id);
    assert.deepEqual([again.status, again.body], [409, { error: 'This project already has invoice INV/2025-26/0001' }]);
    const project = (await poc.client.get(`/api/projects/${p.id}`)).body;
    assert.deepEqual(project.invoice, { number: 'INV/2025-26/0001', date: '2026-03-31', total: 295_011, fileId: first.body.file.id, voided: false });
    assert.deepEqual(project.files.map((f: { id: string }) => f.id), [first.body.file.id]);
    const [entry] = await activityOf(admin.client, p.id);
    assert.deepEqual([entry!.action, entry!.details], ['INVOICE_UPLOADED', { filename: 'INV-2025-26-0001.pdf', size: first.body.file.size }]);
    // The stored PDF says what the invoice is.
    const stored = await bytesOf(admin.client, new URL(first.body.file.url).pathname);
    assert.equal(stored.status, 200);
    const text = await pdfText(stored.bytes);
    for (const want of ['TAX INVOICE', 'INV/2025-26/0001', '2026-03-31', SHOP_GSTIN, MH_CUSTOMER, 'Maharashtra (27)', '2,950.11', 'Two Thousand Nine Hundred Fifty Rupees and Eleven Paise Only']) assert.ok(text.includes(want), `${want} in ${text}`);

    // The boundary: 1 April starts the next year's sequence.
    const q = await pricedProject('DELIVERED', mh.id, LINES);
    assert.equal((await issue(admin, q.id, { invoiceDate: '2026-04-01' })).body.number, 'INV/2026-27/0001');

    const voided = await admin.client.post(`/api/projects/${p.id}/files/${first.body.file.id}/void`, { reason: 'Wrong rate' });
    assert.equal(voided.status, 200, voided.text);
    assert.equal((await poc.client.get(`/api/projects/${p.id}`)).body.invoice.voided, true);
    await admin.client.patch('/api/settings/shop', { invoicePrefix: 'SP' });
    const next = await issue(admin, p.id, { invoiceDate: '2026-03-31' });
    assert.equal(next.status, 201, next.text);
    assert.equal(next.body.number, 'SP/2025-26/0002', 'the sequence is shared by prefixes; the withdrawn number is not reused');
    await admin.client.patch('/api/settings/shop', { invoicePrefix: 'INV' });
  });

  test('20 simultaneous requests: 20 numbers without a gap or a repeat', async () => {
    const mh = await customer({ gstin: MH_CUSTOMER });
    const projects = await Promise.all(Array.from({ length: 20 }, () => pricedProject('DISPATCHED', mh.id, LINES.slice(0, 1))));
    const before = (await admin.client.get('/api/invoices?from=2026-04-01&limit=500')).body.items.length;
    const answers = await Promise.all(projects.map((p) => issue(admin, p.id)));
    for (const a of answers) assert.equal(a.status, 201, a.text);
    const sequences = answers.map((a) => Number(a.body.number.split('/')[2])).sort((x, y) => x - y);
    assert.deepEqual(sequences, Array.from({ length: 20 }, (_, i) => before + 1 + i));
  });
});

describe('the invoice register', () => {
  test('ADMIN only; by financial year newest first, then sequence; withdrawn ones marked; the CSV', async () => {
    assert.equal((await poc.client.get('/api/invoices')).status, 403);
    assert.equal((await poc.client.get('/api/invoices.csv')).status, 403);
    const page = await admin.client.get('/api/invoices?limit=3');
    assert.equal(page.status, 200, page.text);
    assert.deepEqual(page.body.items.map((i: { number: string }) => i.number), ['INV/2026-27/0001', 'INV/2026-27/0002', 'INV/2026-27/0003']);
    const all = (await admin.client.get('/api/invoices?limit=500')).body.items as { number: string; voidedAt: string | null; placeOfSupply: string; customerGstin: string; taxable: number; igst: number; projectNumber: number | null }[];
    const last = all.slice(-2);
    assert.deepEqual(last.map((i) => i.number), ['INV/2025-26/0001', 'SP/2025-26/0002']);
    assert.ok(last[0]!.voidedAt);
    assert.ok(Number.isInteger(last[0]!.projectNumber), "the project's job number");
    assert.equal(last[1]!.voidedAt, null);
    assert.deepEqual([last[1]!.placeOfSupply, last[1]!.customerGstin, last[1]!.taxable, last[1]!.igst], ['Maharashtra (27)', MH_CUSTOMER, 250_010, 45_001]);
    const next = await admin.client.get(`/api/invoices?limit=3&cursor=${page.body.nextCursor}`);
    assert.equal(next.body.items[0].number, 'INV/2026-27/0004');
    assert.equal((await admin.client.get('/api/invoices?cursor=nonsense')).status, 400);
    assert.deepEqual((await admin.client.get('/api/invoices?from=2026-13-01')).body, { error: 'from must be a real date written YYYY-MM-DD' });
    const ranged = (await admin.client.get('/api/invoices?to=2026-03-31')).body.items;
    assert.deepEqual(ranged.map((i: { number: string }) => i.number), ['INV/2025-26/0001', 'SP/2025-26/0002']);
    const csv = await admin.client.get('/api/invoices.csv?to=2026-03-31');
    assert.equal(csv.headers.get('content-type'), 'text/csv; charset=utf-8');
    const raw = await bytesOf(admin.client, '/api/invoices.csv?to=2026-03-31');
    assert.deepEqual([...raw.bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf], 'the byte-order mark');
    assert.equal(
      csv.text, // fetch's text() drops the byte-order mark
      'number,date,customer,customerGstin,placeOfSupply,taxable,cgst,sgst,igst,total,currency,voided\r\n' +
        `INV/2025-26/0001,2026-03-31,${ranged[0].customerName},${MH_CUSTOMER},Maharashtra (27),2500.10,0.00,0.00,450.01,2950.11,INR,true\r\n` +
        `SP/2025-26/0002,2026-03-31,${ranged[1].customerName},${MH_CUSTOMER},Maharashtra (27),2500.10,0.00,0.00,450.01,2950.11,INR,false\r\n`,
    );
  });
});

describe('numbering across two instances (PostgreSQL)', { skip: testDialect !== 'postgres' }, () => {
  test('20 simultaneous requests split over two instances: no gap, no repeat', async () => {
    const b = await startTestService({ env: { TIMEZONE: 'Asia/Kolkata' }, sharedDatabase: svc.deps.config.database });
    try {
      b.deps.clock = svc.deps.clock;
      const other = await svc.createUser({ role: 'ADMIN' });
      const clientB = await b.login(other.email, other.password);
      const mh = await customer({ gstin: MH_CUSTOMER });
      const projects = await Promise.all(Array.from({ length: 20 }, () => pricedProject('DISPATCHED', mh.id, LINES.slice(0, 1))));
      const before = (await admin.client.get('/api/invoices?from=2026-04-01&limit=500')).body.items.length;
      const answers = await Promise.all(projects.map((p, i) => (i % 2 ? clientB.request('POST', `/api/projects/${p.id}/invoice`) : admin.client.request('POST', `/api/projects/${p.id}/invoice`))));
      for (const a of answers) assert.equal(a.status, 201, a.text);
      const sequences = answers.map((a) => Number(a.body.number.split('/')[2])).sort((x, y) => x - y);
      assert.deepEqual(sequences, Array.from({ length: 20 }, (_, i) => before + 1 + i));
    } finally {
      await b.close();
    }
  });
});

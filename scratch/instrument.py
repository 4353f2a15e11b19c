p='/work/main/dist/src/db/index.js'
s=open(p).read()
s=s.replace("all: (params) => prepared.all(bindable(params)),","all: (params) => { const t=process.hrtime.bigint(); try { return prepared.all(bindable(params)); } finally { globalThis.__q ??= new Map(); const e=globalThis.__q.get(text)??[0,0n]; e[0]++; e[1]+=process.hrtime.bigint()-t; globalThis.__q.set(text,e); } },")
s=s.replace("run: (params) => prepared.run(bindable(params)),","run: (params) => { const t=process.hrtime.bigint(); try { return prepared.run(bindable(params)); } finally { globalThis.__q ??= new Map(); const e=globalThis.__q.get(text)??[0,0n]; e[0]++; e[1]+=process.hrtime.bigint()-t; globalThis.__q.set(text,e); } },")
s+="\nprocess.on('SIGTERM', () => { const rows=[...(globalThis.__q??new Map())].sort((a,b)=>Number(b[1][1]-a[1][1])).slice(0,12); for (const [k,[n,t]] of rows) console.error((Number(t)/1e6).toFixed(1)+'ms', n, (Number(t)/1e3/n).toFixed(1)+'us', k.slice(0,120)); });\n"
open(p,'w').write(s)

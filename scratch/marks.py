def sub(p,a,b):
    s=open(p).read(); assert a in s,(p,a); open(p,'w').write(s.replace(a,b,1))
D='/work/main/dist/src/'
pre = """globalThis.__m ??= (() => { const st = new Map(); let cur = null; const f = (name, start) => { const now = performance.now(); if (start) cur = { t0: now, last: now }; if (!cur) return; const e = st.get(name) ?? []; e.push(now - cur.last); st.set(name, e); cur.last = now; }; process.on('SIGTERM', () => { for (const [k, v] of st) { v.sort((a,b)=>a-b); console.error(k.padEnd(20), 'n', v.length, 'p50', v[v.length>>1].toFixed(3), 'mean', (v.reduce((a,b)=>a+b,0)/v.length).toFixed(3)); } }); return f; })();\n"""
sub(D+'http/receive-upload.js',"export async function receiveUpload(req, deps, actor) {", pre+"export async function receiveUpload(req, deps, actor) {\n globalThis.__m('start', true);")
sub(D+'http/receive-upload.js',"const received = new ReceivedFile(part.file, max);","globalThis.__m('filepart'); const received = new ReceivedFile(part.file, max);")
sub(D+'http/receive-upload.js',"const { project, type } = await authorize(deps, actor, true, fields);","const { project, type } = await authorize(deps, actor, true, fields); globalThis.__m('authorized');")
sub(D+'http/receive-upload.js',"placed = { project, type, document };","placed = { project, type, document }; globalThis.__m('placed');")
sub(D+'http/receive-upload.js',"    return recordDocument(","    globalThis.__m('loopdone'); return recordDocument(")
sub(D+'actions/upload-document.js',"        if (!(await deps.store.storageNames.reserve(objectKey(location), nowIso())))","        const rr = await deps.store.storageNames.reserve(objectKey(location), nowIso()); globalThis.__m('reserved'); if (!rr)")
sub(D+'storage/local/index.js',"            await pipeline(body,","            globalThis.__m('put-pre'); await pipeline(body,")
sub(D+'storage/local/index.js',"            const link = () =>","            globalThis.__m('piped'); const link = () =>")
sub(D+'actions/upload-document.js',"    const details = {","    globalThis.__m('recorded'); const details = {")
sub(D+'actions/upload-document.js',"    await notifyProjectChanged(deps.realtime, project.id, project.pocId);","    globalThis.__m('mailed'); await notifyProjectChanged(deps.realtime, project.id, project.pocId); globalThis.__m('notified');")

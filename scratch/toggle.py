import sys,re
t=sys.argv[1]
def sub(p,a,b):
    s=open(p).read(); assert a in s,(p,a); open(p,'w').write(s.replace(a,b))
D='/work/main/dist/src/'
if t=='nofsync': sub(D+'storage/local/index.js',"flush: true","flush: false")
if t=='nolink':
    sub(D+'storage/local/index.js',"const temporary = path.join(this.root, INCOMING, randomUUID());","const temporary = file;")
    sub(D+'storage/local/index.js',"const link = () => fs.promises.link(temporary, file);","const link = async () => {};")
    sub(D+'storage/local/index.js',"await fs.promises.rm(temporary, { force: true });","")
if t=='nomail': sub(D+'actions/upload-document.js',"await deps.store\n        .transaction((store) => queueProjectEmails","if (0) await deps.store\n        .transaction((store) => queueProjectEmails")
if t=='nonotify': sub(D+'actions/upload-document.js',"    await notifyProjectChanged(deps.realtime, project.id, project.pocId);","")
if t=='nohash': sub(D+'uploads/inspect.js',"this.#hash.update(chunk);","")
if t=='nodetect': sub(D+'uploads/inspect.js',"detectType(head).then(","Promise.resolve(null).then(")

import net from 'node:net';

/**
 * A TCP proxy on a free port of 127.0.0.1 to one target, for cutting a dependency off (Redis)
 * without touching the server itself, which other tests share.
 */
export interface TcpProxy {
  readonly port: number;
  /** Connections open through the proxy now. */
  readonly open: number;
  /** Destroys every live connection and refuses new ones (each is closed as soon as it arrives). */
  cut(): void;
  /** Keeps every connection open but forwards nothing (new ones too), as a network partition does. */
  stall(): void;
  /** Back to normal: what a stall held back is delivered, and connections go through again. */
  restore(): void;
  /** The drivers' contracts' outage: 'down' cuts, 'silent' stalls; returns the way back (restore). */
  outage(kind: 'down' | 'silent'): () => Promise<void>;
  close(): Promise<void>;
}

interface Pair {
  client: net.Socket;
  upstream: net.Socket;
  /** Data that arrived during a stall, with the side it goes to, in order. */
  held: [net.Socket, Buffer][];
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let mode: 'open' | 'cut' | 'stalled' = 'open';

  const server = net.createServer((client) => {
    client.on('error', () => {});
    if (mode === 'cut') {
      client.destroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    upstream.on('error', () => {});
    const pair: Pair = { client, upstream, held: [] };
    pairs.add(pair);
    const forward = (to: net.Socket) => (data: Buffer) => {
      if (mode === 'stalled' || pair.held.length) pair.held.push([to, data]);
      else to.write(data);
    };
    client.on('data', forward(upstream));
    upstream.on('data', forward(client));
    // Either side ending ends the pair, as a real connection would.
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end);
    upstream.on('close', end);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;

  const destroyAll = () => {
    for (const { client, upstream } of pairs) {
      client.destroy();
      upstream.destroy();
    }
  };

  const proxy: TcpProxy = {
    port,
    get open() {
      return pairs.size;
    },
    cut() {
      mode = 'cut';
      destroyAll();
    },
    stall() {
      mode = 'stalled';
    },
    restore() {
      mode = 'open';
      for (const pair of pairs) {
        for (const [to, data] of pair.held.splice(0)) to.write(data);
      }
    },
    outage(kind) {
      if (kind === 'down') proxy.cut();
      else proxy.stall();
      return async () => proxy.restore();
    },
    close() {
      mode = 'cut';
      destroyAll();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
  return proxy;
}

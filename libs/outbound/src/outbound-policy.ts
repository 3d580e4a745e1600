import { lookup as dnsLookup } from 'dns';
import * as http from 'http';
import * as https from 'https';
import { isIP, type LookupFunction, type Socket } from 'net';
import type { Duplex } from 'stream';
import { inCidr, specialRange } from './addresses';

/** A user-supplied URL that Larder will not connect to; the message says why and never holds credentials. */
export class OutboundRefusedError extends Error {
  constructor(
    readonly target: string,
    readonly reason: string,
  ) {
    super(`${target}: ${reason}`);
    this.name = 'OutboundRefusedError';
  }
}

interface AllowRule {
  /** An IP or CIDR matched against the resolved address, or a host name matched against the URL's host. */
  address?: string;
  host?: string;
  port?: number;
}

/**
 * Where Larder may connect on a tenant's behalf (bucket endpoints, OTLP endpoints, Langfuse hosts).
 * Every address a host name resolves to must be a public unicast address, unless the operator
 * allows it in `LARDER_OUTBOUND_ALLOW`: comma-separated entries, each an IP, a CIDR or a host name,
 * optionally with `:port` (`127.0.0.1:9000`, `[::1]:4318`, `10.0.0.0/8`, `minio.internal:9000`).
 *
 * The check happens where the connection is made (the agents below resolve, check and connect to the
 * checked address in one step), so a DNS answer that changes between a check and a connection
 * (rebinding) and a redirect to an internal address are refused just the same.
 */
export class OutboundPolicy {
  private readonly rules: AllowRule[];
  private readonly resolver: Resolver;

  /** `resolver` replaces the system's name resolution (tests use it to play a rebinding DNS server). */
  constructor(allow: readonly string[] = [], options: { resolver?: Resolver } = {}) {
    this.rules = allow.map(parseRule);
    this.resolver = options.resolver ?? systemResolver;
  }

  static fromEnv(env: NodeJS.ProcessEnv = process.env): OutboundPolicy {
    return new OutboundPolicy(parseAllowList(env.LARDER_OUTBOUND_ALLOW ?? ''));
  }

  /** Why connecting to `address:port` (reached through host name `host`) is refused, or null when allowed. */
  refusal(address: string, port: number, host: string | null = null): string | null {
    const range = specialRange(address);
    if (range === null) return null;
    const allowed = this.rules.some(
      (r) =>
        (r.port === undefined || r.port === port) &&
        ((r.address !== undefined && inCidr(address, r.address)) ||
          (r.host !== undefined && host !== null && r.host === host.toLowerCase())),
    );
    if (allowed) return null;
    return `${host && host !== address ? `${host} resolves to ${address}, ` : `${address} is `}a ${range} address; Larder does not connect there on a tenant's behalf (an operator can allow it with LARDER_OUTBOUND_ALLOW)`;
  }

  /**
   * Checks a URL before it is saved or used: http(s) only, no credentials in it, and every address its
   * host resolves to allowed. Resolves to the parsed URL; rejects with OutboundRefusedError.
   */
  async check(raw: string, options: { protocols?: readonly string[] } = {}): Promise<URL> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new OutboundRefusedError(redact(raw), 'not a valid absolute URL');
    }
    const protocols = options.protocols ?? ['http:', 'https:'];
    if (!protocols.includes(url.protocol))
      throw new OutboundRefusedError(
        redactUrl(url),
        `the scheme must be ${protocols.map((p) => p.slice(0, -1)).join(' or ')}`,
      );
    if (url.username || url.password)
      throw new OutboundRefusedError(redactUrl(url), 'credentials do not belong in the URL');
    const host = hostOf(url);
    const port = portOf(url);
    const addresses = isIP(host) ? [host] : await this.resolveAll(host, url);
    for (const address of addresses) {
      const why = this.refusal(address, port, isIP(host) ? null : host);
      if (why) throw new OutboundRefusedError(redactUrl(url), why);
    }
    return url;
  }

  private async resolveAll(host: string, url: URL): Promise<string[]> {
    try {
      const addresses = await this.resolver(host);
      if (addresses.length === 0) throw new Error('no address');
      return addresses.map((a) => a.address);
    } catch (err) {
      throw new OutboundRefusedError(
        redactUrl(url),
        `the host name does not resolve (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      );
    }
  }

  /** A `dns.lookup` replacement that refuses host names resolving to a refused address (for `port`). */
  lookupFor(port: number): LookupFunction {
    return (
      hostname: string,
      options: unknown,
      callback: (err: Error | null, address: string | { address: string; family: number }[], family?: number) => void,
    ) => {
      const all = typeof options === 'object' && options !== null && (options as { all?: boolean }).all === true;
      this.resolver(hostname).then(
        (addresses) => {
          if (addresses.length === 0)
            return callback(
              Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }),
              all ? [] : '',
              0,
            );
          for (const a of addresses) {
            const why = this.refusal(a.address, port, hostname);
            if (why) return callback(new OutboundRefusedError(`${hostname}:${port}`, why), all ? [] : '', 0);
          }
          if (all) return callback(null, addresses);
          callback(null, addresses[0].address, addresses[0].family);
        },
        (err: Error) => callback(err, all ? [] : '', 0),
      );
    };
  }

  /** An http(s) agent whose every connection is checked: IP literals directly, host names through lookupFor. */
  agent(protocol: 'http:' | 'https:', options: http.AgentOptions = {}): http.Agent {
    const guard = (
      opts: { host?: string | null; hostname?: string | null; port?: number | string | null },
      callback: (err: Error | null, socket?: Duplex) => void,
    ): Error | null => {
      const host = String(opts.hostname ?? opts.host ?? 'localhost').replace(/^\[|\]$/g, '');
      const port = Number(opts.port ?? (protocol === 'https:' ? 443 : 80));
      if (isIP(host)) {
        const why = this.refusal(host, port);
        if (why) {
          const err = new OutboundRefusedError(`${host}:${port}`, why);
          process.nextTick(() => callback(err));
          return err;
        }
      } else {
        (opts as { lookup?: LookupFunction }).lookup = this.lookupFor(port);
      }
      return null;
    };
    if (protocol === 'https:') {
      return new (class extends https.Agent {
        override createConnection(
          opts: Parameters<https.Agent['createConnection']>[0],
          callback?: (err: Error | null, socket: Duplex) => void,
        ): Duplex {
          if (guard(opts, callback as never)) return undefined as unknown as Duplex;
          return super.createConnection(opts, callback) as Duplex;
        }
      })({ keepAlive: true, ...options });
    }
    return new (class extends http.Agent {
      override createConnection(
        opts: Parameters<http.Agent['createConnection']>[0],
        callback?: (err: Error | null, socket: Duplex) => void,
      ): Duplex {
        if (guard(opts, callback as never)) return undefined as unknown as Duplex;
        return super.createConnection(opts, callback) as Socket;
      }
    })({ keepAlive: true, ...options });
  }
}

export function parseAllowList(text: string): string[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

function parseRule(entry: string): AllowRule {
  let text = entry.trim().toLowerCase();
  let port: number | undefined;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?(\/\d+)?$/.exec(text);
  if (bracketed) {
    port = bracketed[2] ? Number(bracketed[2]) : undefined;
    text = bracketed[1] + (bracketed[3] ?? '');
  } else if (isIP(text.split('/')[0]) !== 6) {
    const m = /^(.*):(\d+)$/.exec(text);
    if (m) {
      text = m[1];
      port = Number(m[2]);
    }
  }
  const base = text.split('/')[0];
  if (isIP(base)) return { address: text, port };
  if (!/^[a-z0-9.-]+$/.test(text))
    throw new Error(`LARDER_OUTBOUND_ALLOW: "${entry}" is neither an IP, a CIDR nor a host name`);
  return { host: text, port };
}

function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
}

export function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

export type Resolver = (host: string) => Promise<{ address: string; family: number }[]>;

const systemResolver: Resolver = (host) =>
  new Promise((resolve, reject) =>
    dnsLookup(host, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
  );

/** The URL without credentials, query or fragment, for messages. */
export function redactUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

function redact(raw: string): string {
  return raw.length > 100 ? `${raw.slice(0, 100)}…` : raw.replace(/\/\/[^@/]*@/, '//');
}

import 'reflect-metadata';
import { METHOD_METADATA, MODULE_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { RequestMethod, Type } from '@nestjs/common';
import { ADMIN_ONLY, IS_PUBLIC, REQUIRED_SCOPE } from '@larder/kernel';
import { AppModule } from '../app.module';

/** Any property of any depth: enough for `forRoot` to build its providers without a real infrastructure. */
const anything: unknown = new Proxy(function () {}, {
  get: (_t, k) => (k === Symbol.toPrimitive ? () => 0 : anything),
  apply: () => anything,
});

function controllersOf(mod: unknown, seen = new Set<unknown>()): Type[] {
  if (!mod || seen.has(mod)) return [];
  seen.add(mod);
  const dynamic = typeof mod === 'object' ? (mod as { module: Type; imports?: unknown[]; controllers?: Type[] }) : null;
  const type = (dynamic ? dynamic.module : mod) as Type;
  const imports = [
    ...(dynamic?.imports ?? []),
    ...((Reflect.getMetadata(MODULE_METADATA.IMPORTS, type) as unknown[]) ?? []),
  ];
  const own = [
    ...(dynamic?.controllers ?? []),
    ...((Reflect.getMetadata(MODULE_METADATA.CONTROLLERS, type) as Type[]) ?? []),
  ];
  return [...own, ...imports.flatMap((m) => controllersOf(m, seen))];
}

function routes(): { route: string; declared: boolean }[] {
  const out: { route: string; declared: boolean }[] = [];
  // with metrics, so that /metrics is among the routes
  for (const c of new Set(controllersOf(AppModule.forRoot(anything as never, { metrics: anything as never })))) {
    const base = (Reflect.getMetadata(PATH_METADATA, c) as string) ?? '';
    for (const name of Object.getOwnPropertyNames(c.prototype)) {
      const handler = (c.prototype as Record<string, unknown>)[name];
      if (name === 'constructor' || typeof handler !== 'function') continue;
      const path = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
      if (path === undefined) continue;
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number];
      const declared = [IS_PUBLIC, REQUIRED_SCOPE, ADMIN_ONLY].some(
        (k) => Reflect.getMetadata(k, handler) !== undefined || Reflect.getMetadata(k, c) !== undefined,
      );
      out.push({
        route: `${method} /${[base, path].filter((x) => x && x !== '/').join('/')} (${c.name}.${name})`,
        declared,
      });
    }
  }
  return out;
}

describe('route scopes (fail closed)', () => {
  const all = routes();

  it('finds the mapped routes of every module', () => {
    expect(all.length).toBeGreaterThan(40);
    expect(all.map((r) => r.route).join('\n')).toMatch(/POST \/v1\/stores\/search/);
    expect(all.map((r) => r.route).join('\n')).toMatch(/POST \/v1\/stores\/files\/search \(SearchFilesHttpController/);
    expect(all.map((r) => r.route).join('\n')).toMatch(/GET \/metrics \(MetricsHttpController/);
  });

  it('every route declares its scope, that it is admin-only, or that it is public', () => {
    expect(all.filter((r) => !r.declared).map((r) => r.route)).toEqual([]);
  });
});

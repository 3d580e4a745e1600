import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CommandBus } from '@nestjs/cqrs';
import { CreateOrganizationCommand, OrganizationCreatedResult } from '@larder/organizations';
import { ApiKeyCreatedResponse, CreateApiKeyCommand } from '@larder/api-keys';
import { OrganizationsReader } from '@larder/projections/organizations/organizations.reader';
import { NatsMessageBus } from '@larder/message-bus/nats/nats.message-bus';
import { positionToString } from '@larder/kernel';
import { rotateMasterKey } from '@larder/secrets';
import { loadConfig } from '../../api/src/config';
import { createInfrastructure, Infrastructure } from '../../api/src/infrastructure';
import { AppModule } from '../../api/src/app.module';

const USAGE = `Usage: npm run cli -- <command>

  projections                 each projection's and reactor's position, lag and whether it is
                              stuck (the event it cannot apply, and the error)
  replay <projection>         drop and rebuild a projection's read model from the event store
  tail [--all]                print domain events as they arrive (from NATS when NATS_URL is set,
                              else straight from the event store); --all starts at the beginning
  orgs list                   list organizations
  orgs create --name <name>   create an organization; prints its id
  keys create --org <id> [--name <name>] [--admin]
                              create an API key in an organization; prints the secret once
  secrets rotate              re-seal every stored credential (bucket keys, trace destination
                              credentials) with a new master key: with the keyring file a new key is
                              generated and the old one dropped; with LARDER_SECRETS_KEY, set the new
                              key there and the old one in LARDER_SECRETS_PREVIOUS_KEYS first
`;

function flag(args: string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}

async function withInfra<T>(fn: (infra: Infrastructure) => Promise<T>, opts: { loops?: boolean } = {}): Promise<T> {
  const config = loadConfig();
  // The CLI never runs reactors: publishing stays with the server's relay.
  const infra = await createInfrastructure(config, { role: 'cli', runLoops: opts.loops ?? false, reactors: false });
  try {
    return await fn(infra);
  } finally {
    await infra.close();
  }
}

async function withApp<T>(
  fn: (commands: CommandBus, infra: Infrastructure, get: <X>(t: new (...a: never[]) => X) => X) => Promise<T>,
): Promise<T> {
  return withInfra(
    async (infra) => {
      infra.runner.start();
      const app = await NestFactory.createApplicationContext(AppModule.forRoot(infra, { http: false }), {
        logger: ['error', 'warn'],
      });
      try {
        return await fn(app.get(CommandBus), infra, (t) => app.get(t));
      } finally {
        await app.close();
      }
    },
    { loops: true },
  );
}

async function main(argv: string[]): Promise<void> {
  Logger.overrideLogger(['error', 'warn']);
  const [cmd, sub, ...rest] = argv;
  const args = [sub, ...rest].filter((x): x is string => x !== undefined);
  const out = (s: string) => process.stdout.write(`${s}\n`);
  switch (cmd) {
    case 'projections':
      await withInfra(async (infra) => {
        const rows = await infra.runner.status();
        out(
          [
            'NAME'.padEnd(20),
            'KIND'.padEnd(11),
            'VERSION'.padEnd(8),
            'POSITION'.padEnd(24),
            'LAG'.padEnd(8),
            'UPDATED'.padEnd(25),
            'STATE',
          ].join(' '),
        );
        for (const r of rows) {
          const lag = `${r.lag}${r.lagCapped ? '+' : ''}`;
          out(
            [
              r.name.padEnd(20),
              r.kind.padEnd(11),
              String(r.version).padEnd(8),
              r.position.padEnd(24),
              lag.padEnd(8),
              (r.updatedAt?.toISOString() ?? '-').padEnd(25),
              r.stuck ? 'STUCK' : 'ok',
            ].join(' '),
          );
          if (r.stuck) {
            const s = r.stuck;
            const what = s.eventId
              ? `event ${s.eventId} (${s.type} in ${s.stream} at ${s.position})`
              : 'reading the log';
            out(`  STUCK on ${what} since ${s.since.toISOString()}, ${s.attempts} attempts: ${s.error}`);
          }
        }
      });
      return;
    case 'replay': {
      if (!sub) throw new Error('replay needs a projection name (see `npm run cli -- projections`)');
      await withInfra(async (infra) => {
        const t0 = Date.now();
        const r = await infra.runner.replay(sub);
        out(
          `replayed ${sub}: ${r.events} events applied, checkpoint ${positionToString(r.position)}, ${Date.now() - t0} ms`,
        );
      });
      return;
    }
    case 'tail': {
      const config = loadConfig();
      const all = args.includes('--all');
      if (config.natsUrl) {
        const bus = await NatsMessageBus.connect({
          url: config.natsUrl,
          stream: config.natsStream,
          subjects: [`${config.natsSubjectPrefix}.>`],
        });
        out(`tailing ${config.natsSubjectPrefix}.> on ${config.natsUrl} (Ctrl-C to stop)`);
        await bus.subscribe(
          `${config.natsSubjectPrefix}.>`,
          (m) => void out(`${m.subject} ${JSON.stringify(m.data)}`),
          { deliver: all ? 'all' : 'new' },
        );
        await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
        await bus.close();
        return;
      }
      await withInfra(async (infra) => {
        const controller = new AbortController();
        process.once('SIGINT', () => controller.abort());
        const after = all ? undefined : await infra.eventStore.headPosition();
        out('tailing the event store (set NATS_URL to tail the NATS subjects instead; Ctrl-C to stop)');
        for await (const e of infra.eventStore.subscribeToAll({ after, signal: controller.signal })) {
          out(`${e.streamId}@${e.revision} ${e.type} ${JSON.stringify(e.data)}`);
        }
      });
      return;
    }
    case 'orgs':
      if (sub === 'list') {
        await withApp(async (_c, _i, get) => {
          for (const o of await get(OrganizationsReader).list()) out(`${o.id}  ${o.name}${o.root ? '  (root)' : ''}`);
        });
        return;
      }
      if (sub === 'create') {
        const name = flag(args, 'name');
        if (!name) throw new Error('orgs create needs --name');
        await withApp(async (commands) => {
          const r: OrganizationCreatedResult = await commands.execute(
            new CreateOrganizationCommand(name, { actor: 'cli' }),
          );
          out(r.organizationId);
        });
        return;
      }
      break;
    case 'keys':
      if (sub === 'create') {
        const org = flag(args, 'org');
        if (!org) throw new Error('keys create needs --org <organization id>');
        await withApp(async (commands, _i, get) => {
          if (!(await get(OrganizationsReader).get(org))) throw new Error(`organization ${org} not found`);
          const key: ApiKeyCreatedResponse = await commands.execute(
            new CreateApiKeyCommand(org, flag(args, 'name') ?? 'API Key', null, null, {
              admin: args.includes('--admin'),
              actor: 'cli',
            }),
          );
          out(`id:     ${key.id}`);
          out(`secret: ${key.value}`);
        });
        return;
      }
      break;
    case 'secrets':
      if (sub === 'rotate') {
        await withInfra(async (infra) => {
          const r = await rotateMasterKey(infra.keyring, infra.secretVault);
          out(`master key: ${r.previousKeyId} -> ${r.currentKeyId} (${infra.keyring.describe})`);
          out(`re-sealed:  ${r.resealed} secret${r.resealed === 1 ? '' : 's'}`);
          if (r.retained.length) out(`kept:       ${r.retained.join(', ')} (still in use; run rotate again)`);
          else if (!infra.keyring.retire) out('LARDER_SECRETS_PREVIOUS_KEYS can now be emptied');
        });
        return;
      }
      break;
  }
  process.stdout.write(USAGE);
  if (cmd && cmd !== 'help' && cmd !== '--help') process.exitCode = 2;
}

main(process.argv.slice(2)).then(
  () => process.exit(process.exitCode ?? 0),
  (err: Error) => {
    process.stderr.write(`error: ${err.message}\n`);
    process.exit(1);
  },
);

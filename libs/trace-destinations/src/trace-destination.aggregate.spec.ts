import { ConflictError, NotFoundError, ValidationFailedError } from '@larder/kernel';
import { TraceDestinationCommand, traceDestinationDecider } from './trace-destination.aggregate';
import { TraceDestinationEvent } from './events';

const ORG = '11111111-1111-4111-8111-111111111111';
const ID = '33333333-3333-4333-8333-333333333333';
const t = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));

const created: TraceDestinationEvent = {
  type: 'TraceDestinationCreated',
  data: {
    destinationId: ID,
    organizationId: ORG,
    name: 'langfuse',
    target: { kind: 'langfuse', host: 'https://langfuse.example/' },
    enabled: true,
    traceKinds: ['agentic_search', 'question_answering', 'chat_completion'],
    credentialsRef: 'sec_1',
    credentialsVersion: 1,
    createdAt: t(0).toISOString(),
  },
};

function given(events: TraceDestinationEvent[]) {
  const state = events.reduce(traceDestinationDecider.evolve, traceDestinationDecider.initialState());
  return { when: (c: TraceDestinationCommand) => () => traceDestinationDecider.decide(c, state), state };
}
const update = (
  fields: Partial<Extract<TraceDestinationCommand, { type: 'UpdateTraceDestination' }>>,
): TraceDestinationCommand => ({
  type: 'UpdateTraceDestination',
  destinationId: ID,
  organizationId: ORG,
  now: t(5),
  ...fields,
});

describe('trace destination decider', () => {
  it('creates a destination with credentials version 1; creating it twice conflicts', () => {
    const { target, ...rest } = created.data;
    const create: TraceDestinationCommand = { type: 'CreateTraceDestination', ...rest, target, now: t(0) };
    expect(given([]).when(create)()).toEqual([created]);
    expect(given([created]).when(create)).toThrow(ConflictError);
  });

  it('supplied credentials rotate (version + 1); omitted ones are kept', () => {
    expect(given([created]).when(update({ credentialsRef: 'sec_2' }))()).toEqual([
      {
        type: 'TraceDestinationUpdated',
        data: { destinationId: ID, credentialsRef: 'sec_2', credentialsVersion: 2, updatedAt: t(5).toISOString() },
      },
    ]);
    const [renamed] = given([created]).when(update({ name: 'prod' }))();
    expect(renamed.data).toEqual({ destinationId: ID, name: 'prod', updatedAt: t(5).toISOString() });
    const after = given([created, renamed]).state;
    expect([after.credentialsRef, after.credentialsVersion]).toEqual(['sec_1', 1]);
  });

  it('an update that changes nothing appends nothing', () => {
    expect(
      given([created]).when(
        update({
          name: 'langfuse',
          enabled: true,
          traceKinds: ['chat_completion', 'agentic_search', 'question_answering'],
        }),
      )(),
    ).toEqual([]);
  });

  it('a new host without the credentials again is refused (stored secrets never follow a URL); with them it is accepted', () => {
    expect(given([created]).when(update({ target: { kind: 'langfuse', host: 'https://elsewhere.example/' } }))).toThrow(
      ValidationFailedError,
    );
    const [moved] = given([created]).when(
      update({ target: { kind: 'langfuse', host: 'https://elsewhere.example/' }, credentialsRef: 'sec_2' }),
    )();
    expect(moved.data).toMatchObject({
      target: { kind: 'langfuse', host: 'https://elsewhere.example/' },
      credentialsRef: 'sec_2',
      credentialsVersion: 2,
    });
  });

  it('the kind never changes', () => {
    expect(
      given([created]).when(
        update({
          target: { kind: 'otlp', endpoint: 'https://c.example/v1/traces', protocol: 'http/protobuf', headerNames: [] },
          credentialsRef: null,
        }),
      ),
    ).toThrow(ValidationFailedError);
  });

  it("another organization's or a deleted destination does not exist", () => {
    expect(
      given([created]).when(update({ organizationId: '99999999-9999-4999-8999-999999999999', name: 'x' })),
    ).toThrow(NotFoundError);
    const deleted: TraceDestinationEvent = {
      type: 'TraceDestinationDeleted',
      data: { destinationId: ID, deletedAt: t(9).toISOString() },
    };
    expect(
      given([created]).when({ type: 'DeleteTraceDestination', destinationId: ID, organizationId: ORG, now: t(9) })(),
    ).toEqual([deleted]);
    expect(given([created, deleted]).when(update({ name: 'x' }))).toThrow(NotFoundError);
    expect(given([created, deleted]).state.credentialsRef).toBeNull();
  });
});

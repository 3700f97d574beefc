// The shared end of both create calls: duplicate check, injected faults around the store step, the answer.
// Order matters for "exactly once": a fault before the store leaves nothing behind; after the store the payment
// exists even though the client saw an error or a dropped connection.
import type { FastifyReply } from 'fastify';
import type { SandboxContext } from '../context';
import { SandboxError } from '../errors';

export async function finishCreate(
  ctx: SandboxContext,
  reply: FastifyReply,
  options: { exists: boolean; what: string; store: () => unknown },
): Promise<FastifyReply> {
  if (options.exists) {
    throw new SandboxError('DUPLICATE_ID', `${options.what} already exists; it was not created again`);
  }
  const fault = ctx.faults.nextCreateFault();
  if (fault === 'fail-before-store') {
    throw new SandboxError('SIMULATED_FAILURE', `simulated failure before ${options.what} was stored`);
  }
  const body = options.store();
  if (fault === 'fail-after-store') {
    throw new SandboxError('SIMULATED_FAILURE', `simulated failure after ${options.what} was stored`);
  }
  if (fault === 'drop-after-store') {
    reply.hijack();
    reply.request.raw.socket.destroy();
    return reply;
  }
  return reply.code(201).send(body);
}

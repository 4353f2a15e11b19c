import { Type } from '@fastify/type-provider-typebox';
import { createCustomer, getCustomer, listCustomers, updateCustomer } from '../../actions/customers.js';
import { presentCustomer } from '../../presenters/index.js';
import { actorOf } from '../session.js';
import { Customer, CustomerChange, CustomerDetail, IdParams, Limit, NewCustomer, errorRef, pageOf } from '../schemas.js';
import type { App, RouteContext } from './context.js';

const ACTIVE = { true: true, false: false, all: undefined } as const;

/** Customers (interface.md, additions of 2026-11-24): read by everyone as far as they may, kept by ADMIN and POC. */
export async function customerRoutes(app: App, { deps, hooks }: RouteContext) {
  app.get(
    '/api/customers',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['customers'],
        summary: 'Customers by name (ADMIN and POC: all; a CLIENT: their own)',
        querystring: Type.Object({
          q: Type.Optional(Type.String({ maxLength: 200, description: 'name contains (case-insensitive)' })),
          active: Type.Optional(Type.Unsafe<keyof typeof ACTIVE>({ type: 'string', enum: Object.keys(ACTIVE), default: 'true', description: 'true (default), false (the inactive ones) or all' })),
          limit: Limit,
          cursor: Type.Optional(Type.String()),
        }),
        response: { 200: pageOf(Customer), 400: errorRef, 401: errorRef },
      },
    },
    async (req) => {
      const { q, active, limit, cursor } = req.query;
      const page = await listCustomers(deps, actorOf(req), { q, active: ACTIVE[active ?? 'true'], limit: limit ?? 50, cursor });
      return { items: page.items.map((c) => presentCustomer(c)), nextCursor: page.nextCursor };
    },
  );

  app.get(
    '/api/customers/:id',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['customers'],
        summary: 'One customer, with its CLIENT users for ADMIN and POC (a CLIENT: only their own, without them)',
        params: IdParams,
        response: { 200: CustomerDetail, 401: errorRef, 404: errorRef },
      },
    },
    async (req) => {
      const { customer, clients } = await getCustomer(deps, actorOf(req), req.params.id);
      return presentCustomer(customer, clients);
    },
  );

  app.post(
    '/api/customers',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['customers'],
        summary: 'Add a customer (ADMIN and POC; active only by an ADMIN)',
        body: NewCustomer,
        response: { 201: Customer, 400: errorRef, 401: errorRef, 403: errorRef, 409: errorRef },
      },
    },
    async (req, reply) => reply.code(201).send(presentCustomer(await createCustomer(deps, actorOf(req), req.body))),
  );

  app.patch(
    '/api/customers/:id',
    {
      onRequest: hooks.requireSession,
      schema: {
        tags: ['customers'],
        summary: 'Change a customer (ADMIN and POC; active only by an ADMIN)',
        params: IdParams,
        body: CustomerChange,
        response: { 200: Customer, 400: errorRef, 401: errorRef, 403: errorRef, 404: errorRef, 409: errorRef },
      },
    },
    async (req) => presentCustomer(await updateCustomer(deps, actorOf(req), req.params.id, req.body)),
  );
}

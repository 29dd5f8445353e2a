// A real OAuth 2.1 / OpenID Connect authorization server on loopback for
// examples/notes-server/tests/oauth_e2e.rs: the npm package `oidc-provider` (installed by
// scripts/setup-interop.sh into .interop/), configured here.
//
//   node provider.mjs          (run with NODE_PATH or from .interop/)
//
// It prints one line `READY <issuer>` on stdout once it listens on
// 127.0.0.1 (a free port), then serves until stdin closes.
//
// Configuration:
// - dynamic client registration (RFC 7591), open;
// - PKCE required for every client;
// - resource indicators (RFC 8707): any requested resource is a resource
//   server with the scopes `notes:read notes:write notes:admin`; its access tokens are
//   RS256 JWTs with `aud` = the resource, living OIDC_AT_TTL seconds
//   (default 3);
// - refresh tokens, rotated on use, as oidc-provider issues them by
//   default: to a client allowed the grant that was granted
//   `offline_access` (which the runtime's OAuth client asks for, with
//   prompt=consent, as OpenID Connect Core 1.0 §11 says);
// - the login and consent screens answered by the server itself: the
//   account is always `alice`, and consent grants what the client asked
//   for, so a client following redirects completes without a browser;
// - DPoP (RFC 9449): token requests with a proof get bound tokens;
// - a pre-registered confidential client `minter` (client_credentials) the
//   test uses to obtain tokens for any audience;
// - test hooks: GET /_test/stats (counts of grants, registrations and key
//   set fetches) and POST /_test/rotate (new signing key; the old one stays
//   published, so tokens signed before remain verifiable).

import http from 'node:http';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import Provider from 'oidc-provider';

const ttl = Number(process.env.OIDC_AT_TTL ?? '3');
const stats = { authorization_code: 0, refresh_token: 0, client_credentials: 0, registrations: 0, jwks: 0, rotations: 0, interactions: 0 };

function newKey() {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { ...privateKey.export({ format: 'jwk' }), kid: randomUUID(), alg: 'RS256', use: 'sig' };
}

let keys = [newKey()];

// The storage of every provider this process builds (the rotation builds a
// new one): clients, grants, sessions, codes and tokens survive it.
const store = new Map();
class SharedAdapter {
  constructor(model) {
    this.model = model;
  }

  key(id) {
    return `${this.model}:${id}`;
  }

  async upsert(id, payload, expiresIn) {
    const expires = expiresIn ? Date.now() + expiresIn * 1000 : Infinity;
    store.set(this.key(id), { payload: { ...payload }, expires });
  }

  async find(id) {
    const entry = store.get(this.key(id));
    if (!entry) return undefined;
    if (entry.expires < Date.now()) {
      store.delete(this.key(id));
      return undefined;
    }
    return entry.payload;
  }

  async findByUid(uid) {
    for (const [key, entry] of store) {
      if (key.startsWith(`${this.model}:`) && entry.payload.uid === uid) return this.find(key.slice(this.model.length + 1));
    }
    return undefined;
  }

  async findByUserCode(userCode) {
    for (const [key, entry] of store) {
      if (key.startsWith(`${this.model}:`) && entry.payload.userCode === userCode) return this.find(key.slice(this.model.length + 1));
    }
    return undefined;
  }

  async consume(id) {
    const entry = store.get(this.key(id));
    if (entry) entry.payload.consumed = Math.floor(Date.now() / 1000);
  }

  async destroy(id) {
    store.delete(this.key(id));
  }

  async revokeByGrantId(grantId) {
    for (const [key, entry] of store) {
      if (entry.payload.grantId === grantId) store.delete(key);
    }
  }
}

function configuration() {
  return {
    adapter: SharedAdapter,
    clients: [
      {
        client_id: 'minter',
        client_secret: 'minter-secret',
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
        token_endpoint_auth_method: 'client_secret_post',
        scope: 'notes:read notes:write notes:admin',
      },
    ],
    jwks: { keys },
    cookies: { keys: ['mcpgen-e2e-cookie-key'] },
    scopes: ['openid', 'offline_access', 'notes:read', 'notes:write', 'notes:admin'],
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      registration: { enabled: true },
      clientCredentials: { enabled: true },
      // RFC 9449: a token request with a DPoP proof gets a token bound to
      // its key (cnf.jkt); one without gets a bearer token.
      dPoP: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx, _client, oneOf) => oneOf,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx, resource) => ({
          scope: 'notes:read notes:write notes:admin',
          audience: resource,
          accessTokenTTL: ttl,
          accessTokenFormat: 'jwt',
          jwt: { sign: { alg: 'RS256' } },
        }),
      },
    },
    rotateRefreshToken: true,
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id }) }),
    ttl: { Interaction: 300, Session: 3600, Grant: 3600, AuthorizationCode: 60, RefreshToken: 3600, ClientCredentials: ttl },
  };
}

function build(issuer) {
  const provider = new Provider(issuer, configuration());
  provider.on('grant.success', (ctx) => {
    const kind = ctx.oidc.params.grant_type;
    if (kind in stats) stats[kind] += 1;
  });
  provider.on('registration_create.success', () => {
    stats.registrations += 1;
  });
  return provider;
}

// Login, then consent: each interaction is finished at once.
async function interaction(provider, req, res) {
  stats.interactions += 1;
  const details = await provider.interactionDetails(req, res);
  const { prompt, params } = details;
  if (prompt.name === 'login') {
    await provider.interactionFinished(req, res, { login: { accountId: 'alice' } }, { mergeWithLastSubmission: false });
    return;
  }
  const grant = details.grantId
    ? await provider.Grant.find(details.grantId)
    : new provider.Grant({ accountId: details.session.accountId, clientId: params.client_id });
  if (prompt.details.missingOIDCScope) grant.addOIDCScope(prompt.details.missingOIDCScope.join(' '));
  if (prompt.details.missingOIDCClaims) grant.addOIDCClaims(prompt.details.missingOIDCClaims);
  for (const [indicator, scopes] of Object.entries(prompt.details.missingResourceScopes ?? {})) {
    grant.addResourceScope(indicator, scopes.join(' '));
  }
  const grantId = await grant.save();
  await provider.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
}

// One Koa handler per provider.
const handlers = new WeakMap();
function handle(provider) {
  if (!handlers.has(provider)) handlers.set(provider, provider.callback());
  return handlers.get(provider);
}

const server = http.createServer();
server.listen(0, '127.0.0.1', () => {
  const issuer = `http://127.0.0.1:${server.address().port}`;
  let provider = build(issuer);
  server.on('request', (req, res) => {
    const path = req.url.split('?')[0];
    const fail = (err) => {
      res.statusCode = 500;
      res.end(String(err?.stack ?? err));
    };
    if (path === '/_test/stats') {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ ...stats, kids: keys.map((k) => k.kid) }));
      return;
    }
    if (path === '/_test/rotate' && req.method === 'POST') {
      // The new key signs from now on; the old one is still published. The
      // in-memory adapter (clients, grants, refresh tokens) is shared by
      // every provider of this process, so nothing else changes.
      keys = [newKey(), keys[0]];
      provider = build(issuer);
      stats.rotations += 1;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ kids: keys.map((k) => k.kid) }));
      return;
    }
    if (path.startsWith('/interaction/')) {
      interaction(provider, req, res).catch(fail);
      return;
    }
    if (path === '/jwks') stats.jwks += 1;
    handle(provider)(req, res);
  });
  process.stdout.write(`READY ${issuer}\n`);
});

process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
process.stdin.on('close', () => process.exit(0));

// An MCP server protected by OAuth 2.1: your authorization server (Auth0, Keycloak, Entra ID...)
// issues JWT access tokens, and this server checks them with its published keys.
//   MCP_ISSUER=https://auth.example.com MCP_RESOURCE=https://mcp.example.com/mcp \
//     node --import tsx examples/oauth-server.ts
// Environment:
//   MCP_ISSUER    the authorization server's issuer URL (required)
//   MCP_RESOURCE  the URL clients connect to, which tokens must name as audience (default:
//                 derived from each request's Host header; set it in production)
//   PORT, HOST    where to listen (default 3000 on 127.0.0.1)
// Tokens need the scope notes:read; the add_note tool also needs notes:write.
import { z } from 'zod';
import { McpServer } from '../src/entries/server.js';
import { jwtAccessTokens } from '../src/entries/http.js';
import { serve } from '../src/entries/node.js';

const issuer = process.env.MCP_ISSUER;
if (!issuer) {
  process.stderr.write("set MCP_ISSUER to your authorization server's issuer URL\n");
  process.exit(1);
}

const server = new McpServer({ name: 'example-oauth', version: '1.0.0' });
// Per user: the token's subject is who the notes belong to.
const notes = new Map<string, string[]>();

server.tool('list_notes', { description: 'Lists your notes' }, (_args, ctx) => {
  const mine = notes.get(ctx.authInfo!.principal) ?? [];
  return mine.length ? mine.join('\n') : 'no notes yet';
});

server.tool('add_note', { description: 'Adds a note (needs the notes:write scope)', input: { text: z.string() } }, ({ text }, ctx) => {
  const who = ctx.authInfo!.principal;
  notes.set(who, [...(notes.get(who) ?? []), text]);
  return `noted for ${who}`;
});

const running = await serve(server, {
  port: Number(process.env.PORT ?? 3000),
  host: process.env.HOST ?? '127.0.0.1',
  oauth: {
    authorizationServers: [issuer],
    resource: process.env.MCP_RESOURCE || undefined,
    scopesSupported: ['notes:read', 'notes:write'],
    requiredScopes: ['notes:read'],
    scopesFor: (method, name) => (method === 'tools/call' && name === 'add_note' ? ['notes:write'] : undefined),
    // Keys come from the issuer's metadata (jwks_uri); an unreachable JWKS is reported on stderr.
    verifyToken: jwtAccessTokens({ issuer }),
  },
});
process.stderr.write(`listening on ${running.url}\n`);

// The API of the OAuth view: a server's sign-in step by step, signing out (the next request
// signs in again), and giving up a sign-in that waits for the browser.
import { StudioRequestError } from './confirm.js';
import type { StudioHub } from './hub.js';
import { route, S, type Route } from './api-route.js';

export function authRoutes(hub: StudioHub): Route[] {
  const known = (name: string) => {
    if (!hub.has(name)) throw new StudioRequestError(404, `No server is named "${name}"`);
    return name;
  };
  return [
    route('GET', `${S}/oauth`, async (c) => hub.auth.view(known(c.params[0]))),
    route('POST', `${S}/oauth/sign-out`, async (c) => {
      const name = known(c.params[0]);
      if (!(await hub.auth.signOut(name))) throw new StudioRequestError(409, `Server "${name}" has not signed in with OAuth`);
      return hub.auth.view(name);
    }),
    route('POST', `${S}/oauth/cancel`, async (c) => ({ cancelled: hub.auth.cancel(known(c.params[0])) })),
  ];
}

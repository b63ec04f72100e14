// The API of the OAuth view: a server's sign-in step by step, signing out (the next request
// signs in again), and giving up a sign-in that waits for the browser.
import { StudioRequestError } from './confirm.js';
import type { StudioHub } from './hub.js';
import { route, SERVER_PATH, type Route } from './route-kit.js';

export function authRoutes(hub: StudioHub): Route[] {
  const known = (name: string) => {
    if (!hub.has(name)) throw new StudioRequestError(404, `No server is named "${name}"`);
    return name;
  };
  return [
    route('GET', `${SERVER_PATH}/oauth`, async (c) => hub.auth.view(known(c.params[0]))),
    route('POST', `${SERVER_PATH}/oauth/sign-out`, async (c) => {
      const name = known(c.params[0]);
      if (!(await hub.auth.signOut(name))) throw new StudioRequestError(409, `Server "${name}" has not signed in with OAuth`);
      return hub.auth.view(name);
    }),
    route('POST', `${SERVER_PATH}/oauth/cancel`, async (c) => ({ cancelled: hub.auth.cancel(known(c.params[0])) })),
  ];
}

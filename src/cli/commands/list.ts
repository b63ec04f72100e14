// mcpkit tools|resources|templates|prompts TARGET: what a server offers, for a person or --json.
import { flag } from '../args.js';
import { CLIENT_HELP } from '../connection.js';
import { renderPrompts, renderResources, renderTemplates, renderTools } from '../render.js';
import type { ClientCommand } from '../run-client.js';

type Kind = 'tools' | 'resources' | 'templates' | 'prompts';

const WHAT: Record<Kind, string> = {
  tools: 'the tools (name, title, description, parameters)',
  resources: 'the resources (name, URI, type, description)',
  templates: 'the resource templates (name, URI template, description)',
  prompts: 'the prompts (name, title, description, arguments)',
};

export function listCommand(kind: Kind): ClientCommand {
  return {
    name: kind,
    minArgs: 1,
    maxArgs: 1,
    usage: `Usage: mcpkit ${kind} TARGET [options]

Lists ${WHAT[kind]} a server offers, every page of them.
TARGET is a URL, a quoted command line ("node server.js") or a server name from a config file.

${CLIENT_HELP}`,
    async run(conn, _args, values) {
      const c = conn.client;
      const json = flag(values, 'json');
      const key = kind === 'templates' ? 'resourceTemplates' : kind;
      const capability = kind === 'templates' ? 'resources' : kind;
      if (!c.serverCapabilities?.[capability]) {
        conn.status.print(conn.status.style.yellow(`The server offers no ${kind}: it does not declare the "${capability}" capability.`));
        if (json) conn.io.stdout.write(`${JSON.stringify({ [key]: [] }, null, 2)}\n`);
        return 0;
      }
      let items: unknown[];
      let text: (items: never[]) => string;
      switch (kind) {
        case 'tools':
          items = await c.listAllTools();
          text = renderTools;
          break;
        case 'resources':
          items = await c.listAllResources();
          text = renderResources;
          break;
        case 'templates':
          items = await c.listAllResourceTemplates();
          text = renderTemplates;
          break;
        case 'prompts':
          items = await c.listAllPrompts();
          text = renderPrompts;
          break;
      }
      conn.io.stdout.write(json ? `${JSON.stringify({ [key]: items }, null, 2)}\n` : text(items as never[]));
      return 0;
    },
  };
}

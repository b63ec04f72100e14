// Names the docs' code blocks may use without declaring them (scripts/doc-blocks.mjs).
// First the objects a page sets up once and then keeps using; then stand-ins for the reader's own
// application code, which the examples call but do not define. Keep this list short: a block that
// needs more is better off declaring what it uses.
import type { CreateMessageParams, ElicitParams, ListenNotification, McpClient, McpServer, SubscriptionFilter, Transport } from 'mcpkit';

declare global {
  // Set up in an earlier block of the same page.
  /** The server the page built. */
  const server: McpServer;
  /** The client the page connected. */
  const client: McpClient;
  /** Any transport. */
  const transport: Transport;
  /** zod, imported at the top of the page. */
  const z: typeof import('zod').z;

  // The reader's application.
  const config: Record<string, unknown>;
  const docs: { name: string }[];
  const topics: string[];
  const pngBytes: Uint8Array;
  const token: string;
  const filter: SubscriptionFilter;
  function load(name: string): string;
  function llm(params: CreateMessageParams): Promise<string>;
  function askUser(params: ElicitParams): Promise<{ [field: string]: string | number | boolean | string[] }>;
  function saveJob(taskId: string): void;
  function reload(uri: string): void;
  function refreshTools(): void;
  function refreshEverything(): void;
  function onNotification(notification: ListenNotification): void;
}

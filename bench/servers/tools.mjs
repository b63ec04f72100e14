// Fifty tools with realistic input schemas (5-10 fields each) for the "50 tools" scenario.
// Schemas are built ONCE per process and shared by every server instance (the most favourable
// way for SDKs that build a server per request: only registration is repeated, not zod).
import { z } from 'zod';

const templates = [
  {
    name: 'search_issues',
    description: 'Search issues in a repository by text, state, labels and assignee',
    shape: () => ({
      repo: z.string().min(3).describe('owner/name of the repository'),
      query: z.string().max(256).describe('Free-text query'),
      state: z.enum(['open', 'closed', 'all']).default('open'),
      labels: z.array(z.string()).max(20).optional(),
      assignee: z.string().optional(),
      sort: z.enum(['created', 'updated', 'comments']).optional(),
      perPage: z.number().int().min(1).max(100).default(30),
      page: z.number().int().min(1).optional(),
    }),
    args: { repo: 'acme/widgets', query: 'crash on start', state: 'open', labels: ['bug', 'p1'], perPage: 20, page: 1 },
  },
  {
    name: 'create_calendar_event',
    description: 'Create an event in the user calendar',
    shape: () => ({
      title: z.string().min(1).max(200),
      start: z.string().describe('ISO 8601 start time'),
      end: z.string().describe('ISO 8601 end time'),
      attendees: z.array(z.string().email()).optional(),
      location: z.string().optional(),
      reminderMinutes: z.number().int().min(0).max(10080).optional(),
      allDay: z.boolean().default(false),
    }),
    args: { title: 'Design review', start: '2026-01-10T10:00:00Z', end: '2026-01-10T11:00:00Z', attendees: ['a@example.com'], allDay: false },
  },
  {
    name: 'query_database',
    description: 'Run a read-only SQL query',
    shape: () => ({
      database: z.string(),
      sql: z.string().max(10000),
      params: z.array(z.union([z.string(), z.number(), z.boolean(), z.null()])).optional(),
      timeoutMs: z.number().int().positive().max(60000).default(5000),
      maxRows: z.number().int().min(1).max(10000).default(100),
    }),
    args: { database: 'analytics', sql: 'select 1 where ? = ?', params: ['a', 1], maxRows: 10 },
  },
  {
    name: 'send_email',
    description: 'Send an email on behalf of the user',
    shape: () => ({
      to: z.array(z.string().email()).min(1),
      cc: z.array(z.string().email()).optional(),
      subject: z.string().max(998),
      body: z.string(),
      html: z.boolean().default(false),
      replyTo: z.string().email().optional(),
      priority: z.enum(['low', 'normal', 'high']).default('normal'),
    }),
    args: { to: ['b@example.com'], subject: 'Hello', body: 'Hi there', priority: 'normal' },
  },
  {
    name: 'get_weather',
    description: 'Weather forecast for a location',
    shape: () => ({
      city: z.string(),
      country: z.string().length(2).optional(),
      units: z.enum(['metric', 'imperial']).default('metric'),
      days: z.number().int().min(1).max(14).default(3),
      hourly: z.boolean().optional(),
    }),
    args: { city: 'Oslo', country: 'NO', units: 'metric', days: 3 },
  },
  {
    name: 'resize_image',
    description: 'Resize and convert an image',
    shape: () => ({
      url: z.string().url(),
      width: z.number().int().min(1).max(8192),
      height: z.number().int().min(1).max(8192).optional(),
      format: z.enum(['png', 'jpeg', 'webp', 'avif']),
      quality: z.number().min(0).max(100).optional(),
      keepAspect: z.boolean().default(true),
      background: z
        .string()
        .regex(/^#[0-9a-f]{6}$/i)
        .optional(),
    }),
    args: { url: 'https://example.com/a.png', width: 640, format: 'webp', quality: 80 },
  },
  {
    name: 'create_ticket',
    description: 'Open a support ticket',
    shape: () => ({
      title: z.string().min(5),
      description: z.string(),
      severity: z.enum(['sev1', 'sev2', 'sev3', 'sev4']),
      component: z.string(),
      customer: z.object({ id: z.string(), name: z.string().optional(), tier: z.enum(['free', 'pro', 'enterprise']) }),
      tags: z.array(z.string()).optional(),
      dueDate: z.string().optional(),
      watchers: z.array(z.string()).max(50).optional(),
    }),
    args: {
      title: 'Login broken',
      description: 'Users cannot log in',
      severity: 'sev2',
      component: 'auth',
      customer: { id: 'c1', tier: 'pro' },
      tags: ['login'],
    },
  },
  {
    name: 'list_files',
    description: 'List files in a directory of the workspace',
    shape: () => ({
      path: z.string(),
      recursive: z.boolean().default(false),
      pattern: z.string().optional(),
      includeHidden: z.boolean().optional(),
      maxDepth: z.number().int().min(0).max(32).optional(),
      limit: z.number().int().min(1).max(5000).default(500),
    }),
    args: { path: 'src', recursive: true, pattern: '*.ts', limit: 100 },
  },
  {
    name: 'translate_text',
    description: 'Translate text between languages',
    shape: () => ({
      text: z.string().max(5000),
      source: z.string().min(2).max(5).optional(),
      target: z.string().min(2).max(5),
      formality: z.enum(['default', 'more', 'less']).optional(),
      glossaryId: z.string().optional(),
    }),
    args: { text: 'Good morning', target: 'nb', formality: 'default' },
  },
  {
    name: 'place_order',
    description: 'Place an order for a list of products',
    shape: () => ({
      customerId: z.string(),
      items: z.array(z.object({ sku: z.string(), quantity: z.number().int().positive() })).min(1),
      currency: z.enum(['USD', 'EUR', 'GBP', 'NOK']),
      couponCode: z.string().optional(),
      shipping: z.object({ street: z.string(), city: z.string(), zip: z.string(), country: z.string().length(2) }),
      express: z.boolean().default(false),
      notes: z.string().max(500).optional(),
    }),
    args: {
      customerId: 'u42',
      items: [{ sku: 'A1', quantity: 2 }],
      currency: 'EUR',
      shipping: { street: 'Main 1', city: 'Bergen', zip: '5003', country: 'NO' },
    },
  },
];

/** 50 tools: the 10 templates × 5, named `<template>_<n>`. Built once per process. */
export const TOOLS = [];
for (let n = 0; n < 5; n++) {
  for (const t of templates) {
    TOOLS.push({ name: `${t.name}_${n}`, description: t.description, shape: t.shape(), args: t.args });
  }
}
/** The tool the scenario calls, and its arguments. */
export const CALLED = TOOLS[0];
export const CALLED_RESULT = `found 3 issues in ${CALLED.args.repo}`;
export function callResultText(name, args) {
  return name === CALLED.name ? `found 3 issues in ${args.repo}` : `${name} ok`;
}

import { processEnv, setting, loadConfig } from '@askdata/common';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const USAGE = `Usage: askdata-admin [--url URL] [--token TOKEN] [--json] <command>

Commands:
  projects list
  projects create --name NAME [--tenancy single|multi] [--instructions TEXT]
  projects update ID [--name NAME] [--tenancy single|multi] [--instructions TEXT]
  projects reindex ID [--wait]     rebuild the project's search index (searches read the old one meanwhile)
  projects reindex-status ID       the project's index and its rebuild's progress
  keys list PROJECT_ID
  keys create PROJECT_ID [--name NAME] [--kind secret|publishable] [--origins ORIGIN,ORIGIN...]
                                   publishable keys (pk_) need the origins of the pages that use them
  keys revoke KEY_ID
  audit list [--project PROJECT_ID] [--action ACTION] [--page N] [--per-page N]
  webhooks list PROJECT_ID
  webhooks create PROJECT_ID --endpoint URL --events EVENT[,EVENT...]   prints the signing secret once
  webhooks update PROJECT_ID WEBHOOK_ID [--endpoint URL] [--events EVENT[,EVENT...]] [--enable | --disable]
  webhooks delete PROJECT_ID WEBHOOK_ID
  webhooks deliveries PROJECT_ID WEBHOOK_ID [--status pending|delivered|failed] [--page N] [--per-page N]
  (events: upsert.completed, upsert.failed, delete.completed, feedback.created)

The admin token comes from --token, ADMIN_TOKEN, or DATA_DIR/admin-token (standalone mode).
The URL comes from --url, ADMIN_URL, or http://127.0.0.1:$ADMIN_PORT (or $PORT when ADMIN_PORT is unset).`;

const cliSettings = {
  ADMIN_URL: setting.string('Base URL of the gateway for the admin command-line tool.'),
  ADMIN_TOKEN: setting.string('Admin token.', { secret: true }),
  PORT: setting.int('Gateway port.', { default: 3000, min: 0, max: 65535 }),
  ADMIN_PORT: setting.int('Gateway admin port (0: the same as PORT).', { default: 0, min: 0, max: 65535 }),
  DATA_DIR: setting.requiredString('Standalone data directory.', { default: './data' }),
};

interface ReindexStatus {
  status: string;
  chunks_done: number;
  chunks_total: number;
  error: string | null;
}

/** Flags that take no value. */
const SWITCHES = ['json', 'wait', 'enable', 'disable'];

interface Parsed {
  positional: string[];
  flags: Record<string, string | true>;
}

function parse(argv: string[]): Parsed {
  const out: Parsed = { positional: [], flags: {} };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith('--')) {
      const [k, v] = a.slice(2).split('=', 2);
      if (v !== undefined) out.flags[k] = v;
      else if (i + 1 < argv.length && !argv[i + 1].startsWith('--') && !SWITCHES.includes(k)) out.flags[k] = argv[++i];
      else out.flags[k] = true;
    } else out.positional.push(a);
  }
  return out;
}

function str(flags: Parsed['flags'], name: string): string | undefined {
  const v = flags[name];
  return typeof v === 'string' ? v : undefined;
}

async function main(): Promise<number> {
  const { positional, flags } = parse(process.argv.slice(2));
  if (flags.help || positional.length === 0) {
    console.log(USAGE);
    return positional.length === 0 && !flags.help ? 2 : 0;
  }
  const env = loadConfig(cliSettings, processEnv());
  const url = (str(flags, 'url') ?? env.ADMIN_URL ?? `http://127.0.0.1:${env.ADMIN_PORT || env.PORT}`).replace(/\/+$/, '');
  const tokenFile = resolve(env.DATA_DIR, 'admin-token');
  const token = str(flags, 'token') ?? env.ADMIN_TOKEN ?? (existsSync(tokenFile) ? readFileSync(tokenFile, 'utf8').trim() : undefined);
  if (!token) throw new Error('No admin token: pass --token, set ADMIN_TOKEN, or run where DATA_DIR/admin-token exists.');

  const call = async (method: string, path: string, body?: unknown): Promise<unknown> => {
    const res = await fetch(url + path, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    const json: unknown = text ? JSON.parse(text) : null;
    if (!res.ok) {
      const message = (json as { message?: string } | null)?.message ?? res.statusText;
      const errors = (json as { errors?: Record<string, string[]> } | null)?.errors;
      throw new Error(`${res.status} ${message}${errors ? '\n' + JSON.stringify(errors, null, 2) : ''}`);
    }
    return json;
  };

  const [group, command, arg, arg2] = positional;
  const query = (names: Record<string, string>) => {
    const q = new URLSearchParams(Object.entries(names).flatMap(([k, flag]): Array<[string, string]> => (str(flags, flag) === undefined ? [] : [[k, str(flags, flag)!]])));
    return q.size ? `?${q.toString()}` : '';
  };
  const hooks = arg ? `/admin/projects/${encodeURIComponent(arg)}/webhooks` : '';
  const hook = arg2 ? `${hooks}/${encodeURIComponent(arg2)}` : '';
  const webhookBody = () => ({
    // --url is the gateway's address.
    ...(str(flags, 'endpoint') !== undefined ? { url: str(flags, 'endpoint') } : {}),
    ...(str(flags, 'events') !== undefined ? { events: str(flags, 'events')!.split(',').filter(Boolean) } : {}),
    ...(flags.enable ? { enabled: true } : flags.disable ? { enabled: false } : {}),
  });
  const body = (keys: string[]) => Object.fromEntries(keys.flatMap((k) => (str(flags, k) !== undefined ? [[k, str(flags, k)]] : [])));
  let result: unknown;
  if (group === 'projects' && command === 'list') result = await call('GET', '/admin/projects');
  else if (group === 'projects' && command === 'create') {
    result = await call('POST', '/admin/projects', { tenancy: 'single', ...body(['name', 'tenancy', 'instructions']) });
  } else if (group === 'projects' && command === 'update' && arg) {
    result = await call('PATCH', `/admin/projects/${encodeURIComponent(arg)}`, body(['name', 'tenancy', 'instructions']));
  } else if (group === 'projects' && command === 'reindex' && arg) {
    const path = `/admin/projects/${encodeURIComponent(arg)}/reindex`;
    result = await call('POST', path);
    // --wait: the progress on stderr every second until the rebuild ends; fails when it fails.
    while (flags.wait && (result as { data: ReindexStatus }).data.status === 'building') {
      const { chunks_done, chunks_total } = (result as { data: ReindexStatus }).data;
      if (!flags.json) console.error(`rebuilding: ${chunks_done} of ${chunks_total} chunks`);
      await new Promise((r) => setTimeout(r, 1000));
      result = await call('GET', path);
    }
    const done = (result as { data: ReindexStatus }).data;
    if (flags.wait && done.status === 'failed') throw new Error(`the rebuild failed: ${done.error ?? 'no reason given'}`);
  } else if (group === 'projects' && command === 'reindex-status' && arg) {
    result = await call('GET', `/admin/projects/${encodeURIComponent(arg)}/reindex`);
  } else if (group === 'keys' && command === 'list' && arg) result = await call('GET', `/admin/projects/${encodeURIComponent(arg)}/keys`);
  else if (group === 'keys' && command === 'create' && arg) {
    const origins = str(flags, 'origins');
    result = await call('POST', `/admin/projects/${encodeURIComponent(arg)}/keys`, {
      ...body(['name', 'kind']),
      ...(origins !== undefined ? { origins: origins.split(',').map((o) => o.trim()) } : {}),
    });
  } else if (group === 'keys' && command === 'revoke' && arg) {
    await call('DELETE', `/admin/keys/${encodeURIComponent(arg)}`);
    result = { data: { id: arg, revoked: true } };
  } else if (group === 'audit' && command === 'list') {
    result = await call('GET', `/admin/audit${query({ project: 'project', action: 'action', page: 'page', per_page: 'per-page' })}`);
  } else if (group === 'webhooks' && command === 'list' && arg) result = await call('GET', hooks);
  else if (group === 'webhooks' && command === 'create' && arg) result = await call('POST', hooks, webhookBody());
  else if (group === 'webhooks' && command === 'update' && arg2) result = await call('PATCH', hook, webhookBody());
  else if (group === 'webhooks' && command === 'delete' && arg2) {
    await call('DELETE', hook);
    result = { data: { id: arg2, deleted: true } };
  } else if (group === 'webhooks' && command === 'deliveries' && arg2) {
    result = await call('GET', `${hook}/deliveries${query({ status: 'status', page: 'page', per_page: 'per-page' })}`);
  } else {
    console.error(USAGE);
    return 2;
  }
  if (flags.json) console.log(JSON.stringify(result));
  else print(result);
  return 0;
}

function print(result: unknown): void {
  const data = (result as { data?: unknown }).data;
  const rows = Array.isArray(data) ? data : [data];
  for (const row of rows) {
    console.log(
      Object.entries(row as Record<string, unknown>)
        .map(([k, v]) => `${k}: ${v === null ? '-' : typeof v === 'object' ? JSON.stringify(v) : String(v as string | number | boolean)}`)
        .join('\n'),
    );
    console.log('');
  }
  const meta = (result as { meta?: { current_page: number; last_page: number; total: number } }).meta;
  if (meta) console.log(`page ${meta.current_page} of ${meta.last_page} (${meta.total} in all)`);
  if (!Array.isArray(data) && data && typeof data === 'object' && 'key' in data) {
    console.log('Keep this key now: it is not shown again.');
  }
  if (!Array.isArray(data) && data && typeof data === 'object' && 'secret' in data) {
    console.log('Keep this signing secret now: it is not shown again.');
  }
}

main().then(
  (code) => process.exit(code),
  (e: Error) => {
    console.error(`askdata-admin: ${e.message}`);
    process.exit(1);
  },
);

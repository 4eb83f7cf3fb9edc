import 'reflect-metadata';
import { APP_NAMES, SETTINGS } from './apps';
import { standaloneSettings } from './standalone.config';

/**
 * Prints every setting of every app, as `.env.example` (default) or as JSON (`--json`: {app: {name: {help,
 * default, secret}}}), straight from the schemas the apps validate at boot.
 */
const all = { ...Object.fromEntries(APP_NAMES.map((a) => [a, SETTINGS[a]])), standalone: standaloneSettings };
if (process.argv.includes('--json')) {
  console.log(
    JSON.stringify(Object.fromEntries(Object.entries(all).map(([app, schema]) => [app, Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, v.describe]))])), null, 2),
  );
} else {
  const seen = new Set<string>();
  const lines = ['# Every setting of askdata, by the app that reads it (generated: node dist/launcher/src/settings.js).', ''];
  for (const [app, schema] of Object.entries(all)) {
    const fresh = Object.entries(schema).filter(([k]) => !seen.has(k));
    if (!fresh.length) continue;
    lines.push(`# --- ${app}`);
    for (const [name, s] of fresh) {
      seen.add(name);
      lines.push(`# ${s.describe.help}${s.describe.secret ? ' (secret)' : ''}`);
      lines.push(`${s.describe.default === undefined ? '# ' : ''}${name}=${s.describe.default ?? ''}`);
    }
    lines.push('');
  }
  console.log(lines.join('\n'));
}

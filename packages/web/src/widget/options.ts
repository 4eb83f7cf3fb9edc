/** What the page says on the `<script>` tag (data-* attributes), read once. */
export interface WidgetOptions {
  base: string;
  key: string;
  collections: string[];
  session: string | null;
  color: string;
  position: 'right' | 'left';
  title: string;
  greeting: string;
}

export function readOptions(script: HTMLScriptElement): WidgetOptions {
  const d = script.dataset;
  const color = d.color && CSS.supports('color', d.color) ? d.color : '#1f5fbf';
  return {
    // The API is the script's own origin: the widget talks to the service that served it, and nothing else.
    base: new URL(script.src, location.href).origin,
    key: (d.key ?? '').trim(),
    collections: (d.collections ?? '')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    session: d.session?.trim() || null,
    color,
    position: d.position === 'left' ? 'left' : 'right',
    title: d.title?.trim() || 'Ask us',
    greeting: d.greeting?.trim() || 'Hello! Ask a question and I will answer from our documentation.',
  };
}

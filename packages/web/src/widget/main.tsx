import { render } from 'preact';
import css from './widget.css?inline';
import { readOptions } from './options';
import { Widget, WidgetApi } from './widget';

declare global {
  interface Window {
    Askdata?: WidgetApi;
  }
}

/**
 * `<script src="https://askdata.example/widget.js" data-key="pk_..." data-collections="faq,docs">`: a chat button
 * on the page, inside a shadow root so that neither the page's styles nor the widget's leak into the other.
 */
function start(script: HTMLScriptElement): void {
  const options = readOptions(script);
  const host = document.createElement('div');
  host.setAttribute('data-askdata-widget', '');
  const root = host.attachShadow({ mode: 'open' });
  // A constructed sheet is not an inline style: it works under a page's strict Content-Security-Policy too.
  if ('adoptedStyleSheets' in root && typeof CSSStyleSheet === 'function' && 'replaceSync' in CSSStyleSheet.prototype) {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync(css);
    root.adoptedStyleSheets = [sheet];
  } else {
    const style = document.createElement('style');
    style.textContent = css;
    root.appendChild(style);
  }
  host.style.setProperty('--askdata-accent', options.color);
  document.body.appendChild(host);
  const mount = document.createElement('div');
  root.appendChild(mount);
  render(<Widget options={options} expose={(api) => (window.Askdata = api)} />, mount);
}

const script = document.currentScript as HTMLScriptElement | null;
if (script) {
  if (document.body) start(script);
  else document.addEventListener('DOMContentLoaded', () => start(script), { once: true });
}

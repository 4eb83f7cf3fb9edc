import { detectLanguage, packJson, TimeSlices } from '@askdata/common';
import { ChunkOptions, chunkText } from './chunk';
import { normalizeItem } from './normalize';

/** An item's data to read, and whether its language is to be detected (neither the item nor its collection gives one). */
export interface ItemToRead {
  data: Record<string, unknown>;
  detect: boolean;
}

/** An item's text as indexed: its title, its body (the title first unless the text begins with it), its language. */
export interface ReadItem {
  title: string;
  body: string;
  /** Null when not asked for, or when it cannot be told. */
  detected: string | null;
  /** Its data packed for catalog to store (base64 of `packJson`): here, on the analysis thread, not on catalog's event loop. */
  packed: string;
}

/** Each item's text and, where asked, language; the loop yields to the event loop now and then. */
export async function readItems(items: ItemToRead[], slices = new TimeSlices()): Promise<ReadItem[]> {
  const out: ReadItem[] = [];
  for (const { data, detect } of items) {
    if (slices.due()) await slices.next();
    const { title, text } = normalizeItem(data);
    const body = title && !text.startsWith(title) ? `${title}\n${text}` : text;
    out.push({ title, body, detected: detect ? await detectLanguage(body) : null, packed: packJson(data).toString('base64') });
  }
  return out;
}

/** Each body's chunks; the loop yields to the event loop now and then. */
export async function chunkBodies(bodies: string[], options: ChunkOptions, slices = new TimeSlices()): Promise<string[][]> {
  const out: string[][] = [];
  for (const body of bodies) {
    if (slices.due()) await slices.next();
    out.push(chunkText(body, options));
  }
  return out;
}

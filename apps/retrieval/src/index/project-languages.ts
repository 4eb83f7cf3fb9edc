import { Injectable } from '@nestjs/common';
import { RefreshedValues } from '@askdata/common';
import { Column, DataSource, Entity, PrimaryColumn } from 'typeorm';

/** The languages a project's chunks were analyzed in, with how many chunks each was given (a running count). */
@Entity({ name: 'project_languages' })
export class ProjectLanguageEntity {
  @PrimaryColumn('uuid', { name: 'project_id' }) projectId!: string;
  @PrimaryColumn('varchar', { length: 8 }) language!: string;
  @Column('bigint') chunks!: string;
}

/** A question is analyzed in at most this many languages. */
export const MAX_QUERY_LANGUAGES = 8;
/** A language of the project is one every question is analyzed in when it holds this share of its chunks. */
const MAIN_SHARE = 0.01;
/**
 * A language holding less than this share of a project's chunks is not one its questions are looked for in: so few
 * chunks are more often records the detector read wrong than records written in it (SciFact's 5,183 English
 * abstracts hold one read as Afrikaans, and six of its 809 English questions are read as Afrikaans too). Questions
 * still find those chunks through the main languages' terms.
 */
const PRESENT_SHARE = 0.001;
/** How long a replica reuses what it read of a project's languages: another replica may have indexed a new one. */
const KEPT_MS = 5000;
/** How old a project's languages may be while they are refreshed in the background. */
const USABLE_MS = 60_000;

/**
 * Which languages a project's chunks are in, so that a question is analyzed in each of them and meets every chunk
 * whatever its language. Recorded as chunks are indexed (in either backend); read again, in the background, once `KEPT_MS` old.
 */
@Injectable()
export class ProjectLanguages {
  private readonly kept = new RefreshedValues<Array<{ language: string; chunks: number }>>(KEPT_MS, USABLE_MS);

  constructor(private readonly ds: DataSource) {}

  async record(projectId: string, chunks: Array<{ language?: string; chunks: unknown[] }>): Promise<void> {
    const counts = new Map<string, number>();
    for (const c of chunks) if (c.chunks.length) counts.set(c.language ?? 'en', (counts.get(c.language ?? 'en') ?? 0) + c.chunks.length);
    if (counts.size === 0) return;
    await this.ds.query(
      `INSERT INTO retrieval.project_languages (project_id, language, chunks)
       SELECT $1, unnest($2::varchar[]), unnest($3::bigint[])
       ON CONFLICT (project_id, language) DO UPDATE SET chunks = retrieval.project_languages.chunks + EXCLUDED.chunks`,
      [projectId, [...counts.keys()], [...counts.values()]],
    );
    const known = this.kept.known(projectId);
    if (known && [...counts.keys()].some((l) => !known.some((k) => k.language === l))) this.kept.delete(projectId);
  }

  /**
   * The languages to analyze a question in: the one it is asked in (`question`: given, or a function that finds
   * it) when given, or when the project has at least 0.1% of its chunks in it; then the project's languages that hold
   * at least 1% of its chunks, most used first. English for a project indexed before languages were recorded.
   */
  async forQuestion(projectId: string, question: string | null | (() => Promise<string | null>), given: boolean): Promise<string[]> {
    const known = await this.of(projectId);
    const total = known.reduce((sum, k) => sum + k.chunks, 0);
    const main = known.filter((k) => k.chunks >= total * MAIN_SHARE).map((k) => k.language);
    const present = (language: string) => known.some((k) => k.language === language && k.chunks >= total * PRESENT_SHARE);
    // Found only where it can matter: where a language present is not a main one, or main ones are more than are kept.
    const matters = main.length > MAX_QUERY_LANGUAGES || known.some((k) => k.chunks < total * MAIN_SHARE && k.chunks >= total * PRESENT_SHARE);
    const asked = typeof question === 'function' ? (matters ? await question() : null) : question;
    const out = new Set<string>();
    if (asked && (given || present(asked))) out.add(asked);
    for (const language of main) out.add(language);
    if (out.size === 0) out.add('en');
    return [...out].slice(0, MAX_QUERY_LANGUAGES);
  }

  /** The project's languages with their chunk counts, most used first. */
  private async of(projectId: string): Promise<Array<{ language: string; chunks: number }>> {
    return this.kept.get(projectId, () =>
      this.ds.query<Array<{ language: string; chunks: number }>>(
        `SELECT language, chunks::float8 AS chunks FROM retrieval.project_languages WHERE project_id = $1 ORDER BY chunks DESC, language`,
        [projectId],
      ),
    );
  }
}

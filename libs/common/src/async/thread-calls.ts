import { existsSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';
import { parentPort, Worker } from 'node:worker_threads';

/** What a thread answers a request with: its result, or why it failed. */
interface Answer<R> {
  id: number;
  result?: R;
  error?: string;
}

/** A running thread and the requests it has not answered. */
interface Thread<R> {
  worker: Worker;
  /** The requests whose callers wait for an answer. */
  waiting: Map<number, { resolve(r: R): void; reject(e: Error): void }>;
  /** Requests sent and not answered yet, those whose callers stopped waiting included. */
  owed: number;
  /** Fires when the thread has owed an answer for `hungMs` without giving any. */
  watchdog: NodeJS.Timeout | null;
}

/**
 * `failed`: how a failed request's error begins; `thread`: the thread, in an error when it stops; `hungMs`: how long
 * it may leave a request unanswered before it is taken to be stuck.
 */
export interface ThreadSpec {
  failed: string;
  thread: string;
  hungMs: number;
}

/** How long a request may wait for its answer, and what it fails with when it waits longer. */
export interface Wait {
  ms: number;
  error: () => Error;
}

/**
 * The V8 limits of the process's worker threads: a young generation of 12 MB (V8's default lets it grow to 48 MB
 * per thread, most of it garbage between collections and resident all the same).
 */
export const THREAD_RESOURCE_LIMITS = { maxYoungGenerationSizeMb: 12 };

/**
 * Requests to a worker thread (its script serves them with {@link serveThreadCalls}), each sent as `{ id,
 * ...request, deadline }` and answered by id. The thread starts on first use (or `start`). A thread that fails or
 * exits fails the requests it held, and the next request starts a new one. A thread that owes an answer and gives
 * none for `hungMs` is taken to be stuck (a loop that never ends): it is stopped, failing the requests it held, and
 * the next request starts a new one. A request may also be given a wait of its own (its caller's deadline): it then
 * fails alone when that passes, and the thread, which skips a request it reaches past its deadline, goes on.
 */
export class ThreadCalls<Q extends object, R> {
  private thread: Thread<R> | null = null;
  private ids = 0;

  constructor(
    private readonly script: string,
    private readonly spec: ThreadSpec,
  ) {}

  /**
   * The thread when `enabled`: its script `given`, else `compiled` (the compiled script beside the caller) if it
   * exists; null when running from sources, where the work runs on the event loop instead.
   */
  static optional<Q extends object, R>(enabled: boolean, compiled: string, given: string | undefined, spec: ThreadSpec): ThreadCalls<Q, R> | null {
    const script = enabled ? (given ?? (existsSync(compiled) ? compiled : null)) : null;
    return script ? new ThreadCalls<Q, R>(script, spec) : null;
  }

  start(): void {
    if (!this.thread) this.launch();
  }

  /** Sends `request` to the thread; `wait` bounds how long this caller waits for its answer. */
  call(request: Q, wait?: Wait): Promise<R> {
    if (wait && wait.ms <= 0) return Promise.reject(wait.error());
    const thread = this.thread ?? this.launch();
    const id = ++this.ids;
    return new Promise<R>((resolve, reject) => {
      const giveUp = () => {
        if (thread.waiting.delete(id)) reject(wait!.error());
      };
      const own = wait && wait.ms < Infinity ? setTimeout(giveUp, wait.ms).unref() : undefined;
      thread.waiting.set(id, {
        resolve: (r) => {
          clearTimeout(own);
          resolve(r);
        },
        reject: (e) => {
          clearTimeout(own);
          reject(e);
        },
      });
      thread.owed++;
      if (!thread.watchdog) this.watch(thread);
      thread.worker.postMessage({ id, ...request, deadline: wait ? Date.now() + wait.ms : null });
    });
  }

  async stop(): Promise<void> {
    const thread = this.thread;
    this.thread = null;
    await thread?.worker.terminate();
  }

  /** Arms the thread's watchdog for `hungMs` from now while it owes answers; clears it when it owes none. */
  private watch(thread: Thread<R>): void {
    if (thread.watchdog) clearTimeout(thread.watchdog);
    thread.watchdog = thread.owed > 0 ? setTimeout(() => void this.stopStuck(thread), this.spec.hungMs).unref() : null;
  }

  /** Stops a thread that owed answers for `hungMs` and gave none: the requests it held fail, the next starts another. */
  private async stopStuck(thread: Thread<R>): Promise<void> {
    if (this.thread === thread) this.thread = null;
    for (const w of thread.waiting.values()) w.reject(new Error(`${this.spec.thread} did not answer within ${this.spec.hungMs} ms, and was stopped`));
    thread.waiting.clear();
    await thread.worker.terminate();
  }

  private launch(): Thread<R> {
    const thread: Thread<R> = { worker: new Worker(this.script, { resourceLimits: THREAD_RESOURCE_LIMITS }), waiting: new Map(), owed: 0, watchdog: null };
    thread.worker.on('message', ({ id, result, error }: Answer<R>) => {
      thread.owed = Math.max(0, thread.owed - 1);
      this.watch(thread);
      const waiting = thread.waiting.get(id);
      thread.waiting.delete(id);
      if (error !== undefined || result === undefined) waiting?.reject(new Error(`${this.spec.failed}: ${error ?? 'no result'}`));
      else waiting?.resolve(result);
    });
    const stopped = (why: string) => {
      if (this.thread === thread) this.thread = null;
      if (thread.watchdog) clearTimeout(thread.watchdog);
      for (const w of thread.waiting.values()) w.reject(new Error(`${this.spec.thread} ${why}`));
      thread.waiting.clear();
    };
    thread.worker.on('error', (e) => stopped(`failed: ${e.message}`));
    thread.worker.on('exit', (code) => stopped(`exited (code ${code})`));
    this.thread = thread;
    return thread;
  }
}

/** The nice value of a thread serving {@link ThreadCalls} on Linux. */
export const BULK_THREAD_NICE = 10;

/**
 * The thread's side of {@link ThreadCalls}: answers each request with what `answer` returns. The thread does bulk
 * work, so on Linux, where the nice value is a thread's and the process's event loop keeps its own, it runs at nice
 * {@link BULK_THREAD_NICE} (or the process's own nice value, if that is higher) and yields the processor to requests
 * a client waits for. Elsewhere (macOS) the nice value is the whole process's, so it is left as it is; so it is where
 * it cannot be set.
 */
export function serveThreadCalls<Q, R>(answer: (request: Q) => Promise<R> | R): void {
  if (process.platform === 'linux') {
    try {
      // Lowered only: a process started under `nice -n 15` keeps its threads at 15.
      setPriority(Math.max(getPriority(), BULK_THREAD_NICE));
    } catch {
      /* not permitted here */
    }
  }
  parentPort!.on('message', (request: Q & { id: number; deadline: number | null }) => {
    // Reached after its caller stopped waiting (it queued behind others): not done.
    if (request.deadline !== null && Date.now() >= request.deadline) return parentPort!.postMessage({ id: request.id, error: 'its caller had stopped waiting' });
    Promise.resolve()
      .then(() => answer(request))
      .then(
        (result) => parentPort!.postMessage({ id: request.id, result }),
        (e: unknown) => parentPort!.postMessage({ id: request.id, error: e instanceof Error ? e.message : String(e) }),
      );
  });
}

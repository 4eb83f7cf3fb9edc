/** A dependency that must be reachable for the app to take traffic (database, bus, Qdrant, the model API). */
export interface ReadinessCheck {
  readonly name: string;
  /** Resolves when the dependency is reachable; rejects with the reason otherwise. */
  check(): Promise<void>;
}

export const READINESS_CHECKS = Symbol('READINESS_CHECKS');

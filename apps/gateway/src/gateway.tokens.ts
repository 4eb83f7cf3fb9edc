/** The admin token in force (configured, or generated and kept by the standalone launcher). */
export const ADMIN_TOKEN = Symbol('ADMIN_TOKEN');

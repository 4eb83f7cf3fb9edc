export const MIGRATIONS = [];

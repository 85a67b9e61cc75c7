// The benchmark's accounts: bench-<i>@example.com, one per client, all with
// this password (each hash with its own salt).
export const PASSWORD = "correct horse battery staple";
export const userEmail = (i) => `bench-${i}@example.com`;

// The shortest job lease the settings' rules allow, for tests that kill a server and wait for the jobs and webhook
// events it held to be claimed again once their lease ends: 7 s instead of the default 60 s.

/** Each timeout a lease must outlast (with the 5 s margin of server/config.ts's rules), and the lease itself. */
export const SHORT_LEASE: Record<string, string> = {
  WEBHOOK_TIMEOUT_MS: '2000',
  CALL_FETCH_TIMEOUT_MS: '2000',
  JOB_LEASE_MS: '7000',
};

/** A quick sandbox pipeline and webhook retries for the crash tests, with the short lease. */
export const CRASH_PIPELINE: Record<string, string> = {
  SANDBOX_SENT_DELAY_MS: '100',
  SANDBOX_DELIVERY_DELAY_MS: '200',
  SANDBOX_MESSAGES_PER_SECOND: '150',
  WEBHOOK_RETRY_BASE_MS: '50',
  WEBHOOK_RETRY_MAX_MS: '500',
  ...SHORT_LEASE,
};

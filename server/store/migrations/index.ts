// Versioned migrations, applied in name order at start. Append; never edit a released one.
import type { Kysely, Migration } from 'kysely';
import type { Dialect } from '../db.js';
import * as core from './001_core.js';
import * as numbers from './002_numbers.js';
import * as numberLookups from './003_numbers_lookups.js';
import * as messages from './004_messages.js';
import * as lookupSignals from './005_lookup_signals.js';
import * as verifications from './006_verifications.js';
import * as hotPathIndexes from './007_hot_path_indexes.js';
import * as webhookQueue from './008_webhook_queue.js';
import * as sealedSecrets from './009_sealed_secrets.js';
import * as claimCounts from './010_claim_counts.js';
import * as rateLimits from './011_rate_limits.js';
import * as calls from './012_calls.js';
import * as proxy from './013_proxy.js';
import * as proxyOpenCounts from './014_proxy_open_counts.js';
import * as dashboardSessions from './015_dashboard_sessions.js';
import * as webhookDashboard from './016_webhook_dashboard.js';
import * as smpp from './017_smpp.js';
import * as sandboxHandovers from './018_sandbox_handovers.js';
import * as metricsIndexes from './019_metrics_indexes.js';
import * as queueCountStripes from './020_queue_count_stripes.js';
import * as fewerMessageIndexes from './021_fewer_message_indexes.js';
import * as queueAdmission from './022_queue_admission.js';
import * as jobClaimIndex from './023_job_claim_index.js';
import * as fewerVerificationSendIndexes from './024_fewer_verification_send_indexes.js';
import * as numberHoldingsVersion from './025_number_holdings_version.js';
import * as numberPoolVersions from './026_number_pool_versions.js';
import * as functionSearchPaths from './027_function_search_paths.js';
import * as pipelineOnPostgres from './028_pipeline_on_postgres.js';
import * as jobHeld from './029_job_held.js';
import * as verificationSendMinutes from './030_verification_send_minutes.js';
import * as queueAdmissionBatches from './031_queue_admission_batches.js';
import * as queueAdmissionRecount from './032_queue_admission_recount.js';

/** What a migration may need beyond the database. */
export interface MigrationContext {
  /** The server secret, for a migration that seals existing data with it (009); resolved on first use. */
  serverSecret?: (db: Kysely<any>) => Promise<string>;
}

type Up = (db: Kysely<any>, dialect: Dialect, context: MigrationContext) => Promise<void>;

const MIGRATIONS: [string, Up][] = [
  ['001_core', core.up],
  ['002_numbers', numbers.up],
  ['003_numbers_lookups', numberLookups.up],
  ['004_messages', messages.up],
  ['005_lookup_signals', lookupSignals.up],
  ['006_verifications', verifications.up],
  ['007_hot_path_indexes', hotPathIndexes.up],
  ['008_webhook_queue', webhookQueue.up],
  ['009_sealed_secrets', sealedSecrets.up],
  ['010_claim_counts', claimCounts.up],
  ['011_rate_limits', rateLimits.up],
  ['012_calls', calls.up],
  ['013_proxy', proxy.up],
  ['014_proxy_open_counts', proxyOpenCounts.up],
  ['015_dashboard_sessions', dashboardSessions.up],
  ['016_webhook_dashboard', webhookDashboard.up],
  ['017_smpp', smpp.up],
  ['018_sandbox_handovers', sandboxHandovers.up],
  ['019_metrics_indexes', metricsIndexes.up],
  ['020_queue_count_stripes', queueCountStripes.up],
  ['021_fewer_message_indexes', fewerMessageIndexes.up],
  ['022_queue_admission', queueAdmission.up],
  ['023_job_claim_index', jobClaimIndex.up],
  ['024_fewer_verification_send_indexes', fewerVerificationSendIndexes.up],
  ['025_number_holdings_version', numberHoldingsVersion.up],
  ['026_number_pool_versions', numberPoolVersions.up],
  ['027_function_search_paths', functionSearchPaths.up],
  ['028_pipeline_on_postgres', pipelineOnPostgres.up],
  ['029_job_held', jobHeld.up],
  ['030_verification_send_minutes', verificationSendMinutes.up],
  ['031_queue_admission_batches', queueAdmissionBatches.up],
  ['032_queue_admission_recount', queueAdmissionRecount.up],
];

export function migrationsFor(dialect: Dialect, context: MigrationContext = {}): Record<string, Migration> {
  return Object.fromEntries(
    MIGRATIONS.map(([name, up]) => [name, { up: (db: Kysely<any>) => up(db, dialect, context) }]),
  );
}

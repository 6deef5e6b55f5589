// The SMPP carrier's tables. smpp_parts: every part of a message (or verification code) handed to the SMSC, with
// the SMSC's message_id once it accepted it (indexed, so a delivery receipt finds its part), how many times it was
// submitted (SMPP has no idempotency: a part unanswered is submitted once more at most, and marked so) and what the
// receipts said. smpp_inbound_parts: the parts of a long inbound message received so far, held until the last one
// arrives or the wait ends, so a restart loses none that the SMSC was told were received.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('smpp_parts')
    .addColumn('owner_sid', 'text', (c) => c.notNull())
    .addColumn('part_index', 'integer', (c) => c.notNull())
    .addColumn('parts', 'integer', (c) => c.notNull())
    // 'message' (owner_sid is a message's) or 'otp' (a verification's).
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('smsc_message_id', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull())
    // 1 once the part was submitted a second time after no answer came to the first.
    .addColumn('resubmitted', 'integer', (c) => c.notNull())
    // 'pending', 'accepted', then what a receipt said: 'delivered', 'undelivered', 'expired', 'rejected' ...
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('date_updated', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('smpp_parts_pk', ['owner_sid', 'part_index'])
    .execute();
  await db.schema.createIndex('smpp_parts_smsc_id').on('smpp_parts').column('smsc_message_id').execute();

  await db.schema
    .createTable('smpp_inbound_parts')
    .addColumn('from_number', 'text', (c) => c.notNull())
    .addColumn('to_number', 'text', (c) => c.notNull())
    .addColumn('reference', 'integer', (c) => c.notNull())
    .addColumn('part_index', 'integer', (c) => c.notNull())
    .addColumn('parts', 'integer', (c) => c.notNull())
    .addColumn('body', 'text', (c) => c.notNull())
    .addColumn('date_received', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('smpp_inbound_parts_pk', ['from_number', 'to_number', 'reference', 'part_index'])
    .execute();
}

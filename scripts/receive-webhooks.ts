// Webhook receiver for trying the API: checks each webhook's signature with verifyWebhook and prints its event.
import http from 'node:http';
import { parseArgs } from 'node:util';
import { verifyWebhook, WebhookVerificationError } from '../client/webhooks.js';

const USAGE = 'usage: npm run --silent receive-webhooks -- --port 4000 --secret whsec_...';

const { values } = parseArgs({ options: { port: { type: 'string' }, secret: { type: 'string' } } });
const port = Number(values.port);
const secret = values.secret ?? '';
if (!Number.isInteger(port) || port < 1 || port > 65535 || !secret.startsWith('whsec_')) {
  console.error(USAGE);
  process.exit(2);
}

const server = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    // The signature covers the body's exact bytes, so verify them before any parsing.
    verifyWebhook(Buffer.concat(chunks), request.headers, secret).then(
      (event) => {
        const data = event.data as { sid?: string; status?: string };
        console.log(`verified ${event.type} ${data.sid ?? ''} ${data.status ?? ''}`.trimEnd());
        response.writeHead(204).end();
      },
      (err: unknown) => {
        const reason = err instanceof WebhookVerificationError ? err.message : String(err);
        console.log(`refused ${request.method} ${request.url}: ${reason}`);
        response.writeHead(401).end();
      },
    );
  });
});
server.on('error', (err) => {
  console.error(`cannot listen on 127.0.0.1:${port}: ${err.message}`);
  process.exit(1);
});
server.listen(port, '127.0.0.1', () => console.log(`receiving webhooks on http://127.0.0.1:${port}/`));

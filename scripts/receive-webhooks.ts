// Webhook receiver for trying the API: checks each webhook's signature with verifyWebhook and prints its event, and
// answers a call's instructions requests (checked with verifyInstructionsRequest) with a short <Say>.
import http from 'node:http';
import { parseArgs } from 'node:util';
import { verifyInstructionsRequest, verifyWebhook, WebhookVerificationError } from '../client/webhooks.js';

const USAGE = 'usage: npm run --silent receive-webhooks -- --port 4000 --secret whsec_...';

const { values } = parseArgs({ options: { port: { type: 'string' }, secret: { type: 'string' } } });
const port = Number(values.port);
const secret = values.secret ?? '';
if (!Number.isInteger(port) || port < 1 || port > 65535 || !secret.startsWith('whsec_')) {
  console.error(USAGE);
  process.exit(2);
}

/** What a call's instructions request is answered (its `url`, a number's `voice_url`, an `action`). */
const TWIML = '<Response><Say>Hello from the webhook receiver.</Say></Response>';

const server = http.createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    const refuse = (err: unknown) => {
      const reason = err instanceof WebhookVerificationError ? err.message : String(err);
      console.log(`refused ${request.method} ${request.url}: ${reason}`);
      response.writeHead(401).end();
    };
    // The signature covers the body's exact bytes (a GET's: its whole URL), so verify them before any parsing.
    const body = Buffer.concat(chunks);
    const form = String(request.headers['content-type']).startsWith('application/x-www-form-urlencoded');
    if (request.method === 'GET' || form) {
      const signed = form ? body : `http://${request.headers.host}${request.url}`;
      verifyInstructionsRequest(signed, request.headers, secret).then((params) => {
        console.log(`verified instructions request ${params.CallSid} ${params.CallStatus}`);
        response.writeHead(200, { 'content-type': 'text/xml' }).end(TWIML);
      }, refuse);
      return;
    }
    verifyWebhook(body, request.headers, secret).then((event) => {
      const data = event.data as { sid?: string; status?: string };
      console.log(`verified ${event.type} ${data.sid ?? ''} ${data.status ?? ''}`.trimEnd());
      response.writeHead(204).end();
    }, refuse);
  });
});
server.on('error', (err) => {
  console.error(`cannot listen on 127.0.0.1:${port}: ${err.message}`);
  process.exit(1);
});
server.listen(port, '127.0.0.1', () => console.log(`receiving webhooks on http://127.0.0.1:${port}/`));

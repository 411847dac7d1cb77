#!/usr/bin/env node
// A Coven client written the way a third party writes one: plain Node.js, @grpc/grpc-js, and
// coven.proto loaded at run time. It follows a conversation (StreamEvents), sends one message to it
// (SendMessage) and prints the text of the answer once the request is done.
//
// Usage:
//   COVEN_TOKEN=<token> node coven-client.js --address localhost:50051 --proto path/to/coven.proto \
//     --conversation <key> --content <text>
// With COVEN_TLS_CA_FILE=<ca.pem> it connects over TLS, trusting that CA (grpc-js checks the host name).
//
// Output on stderr: "coven-client: done text=<answer>" and exit 0, or "coven-client: failed ..." and exit 1.
'use strict';

const path = require('path');
const fs = require('fs');
const crypto = require('crypto');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

function args(argv) {
  const opts = {};
  for (let i = 0; i < argv.length; i += 2) {
    opts[argv[i].replace(/^--/, '')] = argv[i + 1];
  }
  for (const required of ['address', 'proto', 'conversation', 'content']) {
    if (!opts[required]) {
      throw new Error(`--${required} is required`);
    }
  }
  if (!process.env.COVEN_TOKEN) {
    throw new Error('a token is required in COVEN_TOKEN');
  }
  return opts;
}

function fail(what) {
  process.stderr.write(`coven-client: failed ${what}\n`);
  process.exit(1);
}

const opts = args(process.argv.slice(2));
const definition = protoLoader.loadSync(path.basename(opts.proto), {
  includeDirs: [path.dirname(path.resolve(opts.proto))], keepCase: true, longs: String, enums: String, defaults: true, oneofs: true,
});
const coven = grpc.loadPackageDefinition(definition).coven;
const credentials = process.env.COVEN_TLS_CA_FILE
  ? grpc.credentials.createSsl(fs.readFileSync(process.env.COVEN_TLS_CA_FILE))
  : grpc.credentials.createInsecure();
const client = new coven.ClientService(opts.address, credentials);
const metadata = new grpc.Metadata();
metadata.set('authorization', `Bearer ${process.env.COVEN_TOKEN}`);

const timer = setTimeout(() => fail('timeout=30s'), 30000);
let text = '';
const events = client.StreamEvents({ conversation_key: opts.conversation }, metadata);
events.on('metadata', () => {
  // the stream is live: what is sent now is followed
  client.SendMessage({ conversation_key: opts.conversation, content: opts.content, idempotency_key: crypto.randomUUID() }, metadata,
    (err) => { if (err) fail(`send=${JSON.stringify(err.details || err.message)}`); });
});
events.on('data', (event) => {
  if (event.payload === 'text') {
    text += event.text.content;
  } else if (event.payload === 'done') {
    clearTimeout(timer);
    process.stderr.write(`coven-client: done text=${JSON.stringify(text)}\n`);
    events.cancel();
    client.close();
    process.exit(0);
  } else if (event.payload === 'error') {
    fail(`error=${JSON.stringify(event.error)}`);
  }
});
events.on('error', (err) => { if (err.code !== grpc.status.CANCELLED) fail(`stream=${JSON.stringify(err.details || err.message)}`); });

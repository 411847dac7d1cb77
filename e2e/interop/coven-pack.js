#!/usr/bin/env node
// A Coven tool pack written the way a third party writes one: plain Node.js, @grpc/grpc-js, and the
// Coven contract (coven.proto) loaded at run time with @grpc/proto-loader (protobufjs decodes the
// PackWelcome header). Nothing here is generated from or shared with Conclave's Java code.
//
// It offers one tool, word_count ({"text": "..."} -> {"words": N}). It calls
// coven.PackService/Register with its manifest, reads the PackWelcome from the response header
// pack-welcome-bin, and answers every ExecuteToolRequest on the stream with a unary ToolResult.
//
// Usage:
//   COVEN_PACK_TOKEN=<pack token> node coven-pack.js --address 127.0.0.1:50051 --proto path/to/coven.proto \
//     [--pack-id e2e-words] [--version 1.0.0] [--capability chat] [--timeout-seconds 10]
//
// stdout carries one line per event, "<EVENT> <json>", for whoever drives the pack:
//   WELCOME {"packId":..,"rejected":[..]}       the registration was accepted
//   CALL {"requestId":..,"tool":..,"words":N}   a call arrived and was answered (or "error":..)
//   ACK {"requestId":..}                        the node took the ToolResult
//   ACK-FAILED {"requestId":..,"code":..,"details":..}
//   END {"code":N,"codeName":..,"details":..}   the Register stream ended (code 0: normally)
// Diagnostics go to stderr as "coven-pack: <event> key=value ...". The pack exits 0 when the
// stream ends normally or on SIGTERM/SIGINT, 1 when the stream ends with an error status, 2 on
// bad usage.
'use strict';

const path = require('path');
const fs = require('fs');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const protobuf = require('protobufjs');

const WELCOME_HEADER = 'pack-welcome-bin';
const WORD_COUNT_SCHEMA = { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] };

function emit(event, fields) {
  process.stdout.write(`${event} ${JSON.stringify(fields)}\n`);
}

function log(event, fields = {}) {
  const parts = Object.entries(fields).map(([k, v]) => `${k}=${JSON.stringify(String(v))}`);
  process.stderr.write(`coven-pack: ${event}${parts.length ? ' ' + parts.join(' ') : ''}\n`);
}

function parseArgs(argv) {
  const opts = {
    address: process.env.COVEN_GATEWAY_ADDRESS || '127.0.0.1:50051',
    proto: process.env.COVEN_PROTO || '',
    token: process.env.COVEN_PACK_TOKEN || '',
    packId: process.env.COVEN_PACK_ID || 'e2e-words',
    version: '1.0.0',
    capability: 'chat',
    timeoutSeconds: 10,
  };
  const flags = {
    '--address': 'address', '--proto': 'proto', '--pack-id': 'packId', '--version': 'version',
    '--capability': 'capability', '--timeout-seconds': 'timeoutSeconds',
  };
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (value === undefined || !(flag in flags)) {
      throw new Error(`unknown or incomplete option '${flag}'`);
    }
    opts[flags[flag]] = value;
  }
  opts.timeoutSeconds = Number(opts.timeoutSeconds);
  if (!Number.isInteger(opts.timeoutSeconds) || opts.timeoutSeconds < 0) {
    throw new Error(`--timeout-seconds must be a whole number of seconds, got '${opts.timeoutSeconds}'`);
  }
  if (!opts.proto || !fs.existsSync(opts.proto)) {
    throw new Error(`coven.proto not found at '${opts.proto}' (--proto or COVEN_PROTO)`);
  }
  if (!opts.token) {
    throw new Error('a pack token is required in COVEN_PACK_TOKEN');
  }
  return opts;
}

/** The Coven services for grpc-js, and the message types for decoding the welcome header. */
function loadCoven(protoPath) {
  const dir = path.dirname(path.resolve(protoPath));
  const definition = protoLoader.loadSync(path.basename(protoPath), {
    includeDirs: [dir], keepCase: true, longs: String, enums: String, defaults: true, oneofs: true,
  });
  // protobufjs bundles google/protobuf/empty.proto, as proto-loader does
  const root = new protobuf.Root().loadSync(path.resolve(protoPath), { keepCase: true });
  return { services: grpc.loadPackageDefinition(definition).coven, PackWelcome: root.lookupType('coven.PackWelcome') };
}

function manifest(opts) {
  return {
    pack_id: opts.packId,
    version: opts.version,
    tools: [{
      name: 'word_count',
      description: 'Counts the words (runs of non-whitespace characters) in a text.',
      input_schema_json: JSON.stringify(WORD_COUNT_SCHEMA),
      required_capabilities: opts.capability ? [opts.capability] : [],
      timeout_seconds: opts.timeoutSeconds,
    }],
  };
}

/** Runs word_count on a call's input; returns {output} or {error}. */
function wordCount(inputJson) {
  let input;
  try {
    input = JSON.parse(inputJson || '{}');
  } catch (err) {
    return { error: `input_json is not JSON: ${err.message}` };
  }
  if (input === null || typeof input !== 'object' || typeof input.text !== 'string') {
    return { error: 'text is required and must be a string' };
  }
  const words = input.text.split(/\s+/).filter((w) => w.length > 0).length;
  return { output: { words } };
}

class Pack {
  constructor(opts, coven) {
    this.opts = opts;
    this.coven = coven;
    this.client = new coven.services.PackService(opts.address, grpc.credentials.createInsecure());
    this.metadata = new grpc.Metadata();
    this.metadata.set('authorization', `Bearer ${opts.token}`);
    this.call = null;
    this.stopping = false;
  }

  start() {
    log('registering', { address: this.opts.address, pack: this.opts.packId });
    this.call = this.client.Register(manifest(this.opts), this.metadata);
    this.call.on('metadata', (md) => this.onHeaders(md));
    this.call.on('data', (request) => this.onRequest(request));
    this.call.on('status', (status) => this.onStatus(status));
    // the 'status' event reports how it ended; 'error' only has to be handled
    this.call.on('error', (err) => log('stream-error', { code: grpc.status[err.code] || err.code, details: err.details }));
  }

  onHeaders(md) {
    const values = md.get(WELCOME_HEADER);
    if (values.length === 0) {
      // a trailers-only answer (a refusal) carries no welcome; the status says why
      log('headers-without-welcome');
      return;
    }
    // grpc-js hands -bin values over already base64-decoded
    const welcome = this.coven.PackWelcome.decode(values[0]);
    emit('WELCOME', { packId: welcome.pack_id, rejected: welcome.rejected_tools || [] });
  }

  onRequest(request) {
    const result = request.tool_name === 'word_count' ? wordCount(request.input_json) : { error: `unknown tool '${request.tool_name}'` };
    const response = { request_id: request.request_id };
    if (result.error) {
      response.error = result.error;
    } else {
      response.output_json = JSON.stringify(result.output);
    }
    emit('CALL', { requestId: request.request_id, tool: request.tool_name, ...(result.error ? { error: result.error } : result.output) });
    this.client.ToolResult(response, this.metadata, { deadline: Date.now() + 10_000 }, (err) => {
      if (err) {
        emit('ACK-FAILED', { requestId: request.request_id, code: err.code, details: err.details });
      } else {
        emit('ACK', { requestId: request.request_id });
      }
    });
  }

  onStatus(status) {
    const codeName = grpc.status[status.code] || String(status.code);
    emit('END', { code: status.code, codeName, details: status.details });
    const failed = status.code !== grpc.status.OK && !(this.stopping && status.code === grpc.status.CANCELLED);
    this.exit(failed ? 1 : 0);
  }

  stop(signal) {
    log('signal', { signal });
    this.stopping = true;
    if (this.call) {
      this.call.cancel();
    }
    // the cancelled stream reports its status, which exits; this is the bound if it never does
    setTimeout(() => this.exit(0), 2000).unref();
  }

  exit(code) {
    this.client.close();
    log('exit', { code });
    // let stdout drain before the process goes
    process.stdout.write('', () => process.exit(code));
  }
}

function main() {
  process.stderr.on('error', () => {});
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (err) {
    log('usage-error', { error: err.message });
    process.exit(2);
  }
  const pack = new Pack(opts, loadCoven(opts.proto));
  process.on('SIGTERM', () => pack.stop('SIGTERM'));
  process.on('SIGINT', () => pack.stop('SIGINT'));
  pack.start();
}

main();

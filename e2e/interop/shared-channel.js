#!/usr/bin/env node
// Several Coven agents multiplexed on ONE @grpc/grpc-js channel (one HTTP/2 connection), driven by
// SharedChannelCancelIT through commands on stdin. It checks what a third-party gRPC stack sees
// when one of the agents cancels its AgentStream: the others, on the same connection, must not
// notice. grpc-js's call.cancel() is not a bare RST_STREAM: Node first half-closes the stream
// (an empty DATA frame with END_STREAM), then sends RST_STREAM(CANCEL) right behind it.
//
// Commands (one a line on stdin):
//   open <round> <n> [raw]        opens n AgentStreams on the shared client, agent ids sc-<round>-<slot>,
//                                 and registers each once the gateway's response headers arrive; slot
//                                 <raw>, if given, is opened with Node's http2 API directly on the
//                                 channel's HTTP/2 session (still the one connection), to send frame
//                                 sequences grpc-js never does
//   cancel <round> <slot> <mode>  the agent in that slot cancels its call:
//       idle             now
//       after-response   answers its held request with a text event, then cancels in the same tick
//       after-done       answers its held request with text and done, then cancels in the same tick
//       burst            when the first InjectContext of a burst the test sends arrives
//       ending           when the gateway's Shutdown arrives, i.e. while the gateway ends the stream
//                        (the test makes it: 'supersede' registers the same agent id again)
//       halfclose-rst    half-closes (call.end()) then cancels in the same tick: the END_STREAM
//                        comes from the agent itself, grpc-js's RST_STREAM(CANCEL) right behind
//       raw-noerror      (a slot opened raw, see below) half-closes, then RST_STREAM(NO_ERROR) once
//                        the END_STREAM is out: what grpc-go does when it ends a stream
//       paused-ending    (a raw slot) stops reading, so that its window fills up and the gateway's
//                        writes back up; cancels as grpc-js does on 'release'
//   supersede <round> <slot>      opens another AgentStream with the same agent id (same channel)
//   release <round> <slot>        a paused-ending victim cancels now
//   finish <round>                half-closes every stream of the round still open
//   exit                          closes the client and exits 0
//
// An agent answers a SendMessage 'ping <x>' with a text event 'pong <x>' and done; it holds a
// SendMessage 'hold' (the victim's request of after-response/after-done).
//
// Progress lines go to stderr as "shared-channel: <event> key=value ...": every HTTP/2 session
// grpc-js opens (h2-connect, with its local port), a GOAWAY or close of one (h2-goaway, h2-close),
// every change of the channel's connectivity state (channel-state), and each agent's events.
'use strict';

const http2 = require('http2');
const fs = require('fs');
const path = require('path');
const readline = require('readline');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');
const protobuf = require('protobufjs');

function log(event, fields = {}) {
  const parts = Object.entries(fields).map(([k, v]) => `${k}=${quote(v)}`);
  process.stderr.write(`shared-channel: ${event}${parts.length ? ' ' + parts.join(' ') : ''}\n`);
}

function quote(value) {
  const s = String(value);
  return /^[^\s"=]*$/.test(s) && s !== '' ? s : JSON.stringify(s);
}

// Every HTTP/2 session grpc-js opens goes through http2.connect: the test counts them and watches
// each for a GOAWAY or a close, which would end every agent multiplexed on it. grpc-js removes all
// of a session's listeners once its SETTINGS arrive, so the session's are added after that, and the
// socket's close is watched as well.
const CONNECTION_WINDOW_BYTES = 8 * 1024 * 1024;
let sessionCount = 0;
let currentSession = null;
const connect = http2.connect;
http2.connect = function sharedChannelConnect(...args) {
  const session = connect.apply(this, args);
  const id = ++sessionCount;
  currentSession = session;
  session.once('connect', () => {
    log('h2-connect', { session: id, local_port: session.socket.localPort });
    session.socket.once('close', () => log('h2-close', { session: id, what: 'socket' }));
  });
  session.once('remoteSettings', () => setImmediate(() => {
    session.on('goaway', (code, lastStreamId) => log('h2-goaway', { session: id, code, last_stream: lastStreamId }));
    session.on('error', (err) => log('h2-error', { session: id, error: err.message }));
    session.once('close', () => log('h2-close', { session: id, what: 'session' }));
    // a large connection window, streams keeping the default 64 KiB one: a stream that stops
    // reading fills its own window, not the connection's (grpc-js does the same when its option
    // grpc-node.flow_control_window is set, but for the streams' windows as well)
    session.setLocalWindowSize(CONNECTION_WINDOW_BYTES);
  }));
  return session;
};

function parseArgs(argv) {
  const opts = { address: '', proto: '', token: process.env.COVEN_AGENT_TOKEN || '' };
  for (let i = 0; i < argv.length; i += 2) {
    if (argv[i] === '--address') {
      opts.address = argv[i + 1];
    } else if (argv[i] === '--proto') {
      opts.proto = argv[i + 1];
    } else {
      throw new Error(`unknown option '${argv[i]}'`);
    }
  }
  if (!opts.address || !opts.proto || !fs.existsSync(opts.proto)) {
    throw new Error('--address and --proto (an existing coven.proto) are required');
  }
  if (!opts.token) {
    throw new Error('an agent token is required in COVEN_AGENT_TOKEN');
  }
  return opts;
}

function loadCoven(protoPath) {
  const definition = protoLoader.loadSync(path.basename(protoPath), {
    includeDirs: [path.dirname(path.resolve(protoPath))],
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  return grpc.loadPackageDefinition(definition).coven;
}

/** One AgentStream on the shared client. */
class Slot {
  constructor(shared, round, slot, agentId) {
    this.shared = shared;
    this.round = round;
    this.slot = slot;
    this.agentId = agentId;
    this.call = null;
    this.held = null; // the request id of a 'hold'
    this.armed = null; // the mode of a cancel waiting for its moment
    this.cancelled = false;
    this.closed = false;
  }

  tag(fields = {}) {
    return { round: this.round, slot: this.slot, agent: this.agentId, ...fields };
  }

  open() {
    const metadata = new grpc.Metadata();
    metadata.set('authorization', `Bearer ${this.shared.token}`);
    this.call = this.shared.client.AgentStream(metadata);
    this.call.once('metadata', () => {
      this.write({
        register: {
          agent_id: this.agentId,
          name: `shared channel ${this.round}/${this.slot}`,
          capabilities: ['chat'],
          metadata: { workspaces: ['interop'], backend: 'node-grpc-js-shared' },
          protocol_features: ['injection'],
        },
      });
    });
    this.call.on('data', (message) => this.onMessage(message));
    this.call.on('error', (err) => {
      this.closed = true;
      // a cancel's own CANCELLED is expected; anything else on a stream is reported
      log(this.cancelled && err.code === grpc.status.CANCELLED ? 'cancelled-status' : 'stream-error',
        this.tag({ code: grpc.status[err.code] || err.code, details: err.details || err.message }));
    });
    this.call.on('end', () => {
      this.closed = true;
      log('stream-end', this.tag());
    });
    this.call.on('status', (status) => log('status', this.tag({ code: grpc.status[status.code] || status.code, details: status.details })));
  }

  write(message) {
    if (this.call.writableEnded || this.call.destroyed) {
      log('write-skipped', this.tag({ payload: Object.keys(message)[0] }));
      return;
    }
    this.call.write(message);
  }

  respond(requestId, event) {
    this.write({ response: { request_id: requestId, ...event } });
  }

  onMessage(message) {
    switch (message.payload) {
      case 'welcome':
        return log('welcome', this.tag({ server: message.welcome.server_id }));
      case 'registration_error':
        return log('registration-error', this.tag({ reason: message.registration_error.reason }));
      case 'send_message': {
        const request = message.send_message;
        const [command, ...rest] = request.content.trim().split(/\s+/);
        if (command === 'ping') {
          this.respond(request.request_id, { text: `pong ${rest.join(' ')}` });
          this.respond(request.request_id, { done: { full_response: '' } });
          return log('answered', this.tag({ request: request.request_id }));
        }
        if (command === 'hold') {
          this.held = request.request_id;
          return log('holding', this.tag({ request: request.request_id }));
        }
        this.respond(request.request_id, { error: `unknown command '${command}'` });
        return log('refused', this.tag({ request: request.request_id, content: request.content }));
      }
      case 'inject_context':
        if (this.armed === 'burst') {
          return this.cancel('burst');
        }
        return log('injection', this.tag({ id: message.inject_context.injection_id }));
      case 'shutdown':
        log('shutdown', this.tag({ reason: message.shutdown.reason }));
        if (this.armed === 'ending') {
          this.cancel('ending');
        }
        return undefined;
      default:
        return log('ignored', this.tag({ payload: message.payload }));
    }
  }

  /** Arms or performs the cancel of this mode. */
  cancelIn(mode) {
    switch (mode) {
      case 'idle':
        return this.cancel(mode);
      case 'after-response':
        this.respond(this.requireHeld(), { text: 'half an answer' });
        return this.cancel(mode);
      case 'after-done':
        this.respond(this.requireHeld(), { text: 'a whole answer' });
        this.respond(this.held, { done: { full_response: '' } });
        return this.cancel(mode);
      case 'halfclose-rst':
        this.call.end();
        return this.cancel(mode);
      case 'burst':
      case 'ending':
        this.armed = mode;
        return log('armed', this.tag({ mode }));
      default:
        throw new Error(`unknown cancel mode '${mode}'`);
    }
  }

  requireHeld() {
    if (!this.held) {
      throw new Error(`${this.agentId} holds no request`);
    }
    return this.held;
  }

  cancel(mode) {
    if (this.cancelled) {
      return;
    }
    this.cancelled = true;
    this.armed = null;
    this.call.cancel();
    log('cancel', this.tag({ mode }));
  }

  finish() {
    if (!this.cancelled && !this.call.writableEnded) {
      this.call.end();
    }
  }
}

/**
 * An AgentStream written with Node's http2 API on the shared channel's own HTTP/2 session: gRPC
 * framing by hand, the messages encoded with protobufjs. Registers, then waits for its cancel.
 */
class RawSlot {
  constructor(shared, round, slot, agentId) {
    this.shared = shared;
    this.round = round;
    this.slot = slot;
    this.agentId = agentId;
    this.stream = null;
    this.pending = Buffer.alloc(0);
    this.cancelled = false;
  }

  tag(fields = {}) {
    return { round: this.round, slot: this.slot, agent: this.agentId, raw: true, ...fields };
  }

  open() {
    // grpc-js connects with the first call: the raw stream waits for that connection
    if (!currentSession || currentSession.connecting) {
      setTimeout(() => this.open(), 10);
      return;
    }
    if (currentSession.closed || currentSession.destroyed) {
      log('stream-error', this.tag({ details: 'the shared channel has no open HTTP/2 session' }));
      return;
    }
    this.stream = currentSession.request({
      ':method': 'POST',
      ':path': '/coven.CovenControl/AgentStream',
      'content-type': 'application/grpc',
      te: 'trailers',
      authorization: `Bearer ${this.shared.token}`,
    });
    this.stream.once('response', () => this.write({
      register: {
        agentId: this.agentId,
        name: `shared channel ${this.round}/${this.slot} (raw)`,
        capabilities: ['chat'],
        metadata: { workspaces: ['interop'], backend: 'node-http2-raw' },
        protocolFeatures: ['injection'],
      },
    }));
    this.stream.on('data', (chunk) => this.onData(chunk));
    this.stream.on('trailers', (trailers) => log('status', this.tag({ code: trailers['grpc-status'], details: trailers['grpc-message'] || '' })));
    this.stream.on('error', (err) => log(this.cancelled ? 'cancelled-status' : 'stream-error', this.tag({ details: err.message })));
    this.stream.on('close', () => log('raw-closed', this.tag({ rst: this.stream.rstCode })));
  }

  write(message) {
    const body = this.shared.types.AgentMessage.encode(this.shared.types.AgentMessage.fromObject(message)).finish();
    const frame = Buffer.alloc(5 + body.length);
    frame.writeUInt8(0, 0);
    frame.writeUInt32BE(body.length, 1);
    Buffer.from(body).copy(frame, 5);
    this.stream.write(frame);
  }

  onData(chunk) {
    this.pending = Buffer.concat([this.pending, chunk]);
    while (this.pending.length >= 5) {
      const length = this.pending.readUInt32BE(1);
      if (this.pending.length < 5 + length) {
        return;
      }
      const body = this.pending.subarray(5, 5 + length);
      this.pending = this.pending.subarray(5 + length);
      const types = this.shared.types;
      const message = types.ServerMessage.toObject(types.ServerMessage.decode(body), { oneofs: true });
      if (message.payload === 'welcome') {
        log('welcome', this.tag({ server: message.welcome.serverId }));
      } else {
        log('ignored', this.tag({ payload: message.payload }));
      }
    }
  }

  cancelIn(mode) {
    switch (mode) {
      case 'raw-noerror':
        this.cancelled = true;
        // END_STREAM first; Node sends the RST_STREAM(NO_ERROR) as soon as that is written
        this.stream.end();
        this.stream.close(http2.constants.NGHTTP2_NO_ERROR);
        return log('cancel', this.tag({ mode }));
      case 'paused-ending':
        // Node stops taking the stream's data: once its window is full the gateway's writes back up
        this.stream.pause();
        return log('armed', this.tag({ mode }));
      default:
        throw new Error(`a raw slot cancels with raw-noerror or paused-ending, not ${mode}`);
    }
  }

  /** What grpc-js's call.cancel() does to its stream. */
  cancel(mode) {
    if (this.cancelled) {
      return;
    }
    this.cancelled = true;
    this.stream.close(http2.constants.NGHTTP2_CANCEL);
    log('cancel', this.tag({ mode }));
  }

  finish() {
    if (!this.stream.closed) {
      this.stream.close(http2.constants.NGHTTP2_NO_ERROR);
    }
  }
}

class Shared {
  constructor(opts, coven, types) {
    this.token = opts.token;
    this.types = types;
    // ONE client: every call below is on its channel, hence on one HTTP/2 connection
    this.client = new coven.CovenControl(opts.address, grpc.credentials.createInsecure());
    this.rounds = new Map(); // round -> Slot[]
    this.extra = new Map(); // round -> Slot[] opened by supersede
    this.watchState(this.client.getChannel().getConnectivityState(false));
  }

  watchState(current) {
    const channel = this.client.getChannel();
    channel.watchConnectivityState(current, Infinity, (err) => {
      if (err) {
        return;
      }
      const next = channel.getConnectivityState(false);
      log('channel-state', { state: grpc.connectivityState[next] });
      this.watchState(next);
    });
  }

  slot(round, slot) {
    const found = (this.rounds.get(round) || [])[slot];
    if (!found) {
      throw new Error(`no slot ${slot} in round ${round}`);
    }
    return found;
  }

  handle(line) {
    const [command, ...args] = line.trim().split(/\s+/);
    switch (command) {
      case 'open': {
        const round = Number(args[0]);
        const raw = args[2] === undefined ? -1 : Number(args[2]);
        const slots = [];
        for (let i = 0; i < Number(args[1]); i++) {
          const s = new (i === raw ? RawSlot : Slot)(this, round, i, `sc-${round}-${i}`);
          slots.push(s);
          s.open();
        }
        this.rounds.set(round, slots);
        return log('opened', { round, streams: slots.length });
      }
      case 'cancel':
        return this.slot(Number(args[0]), Number(args[1])).cancelIn(args[2]);
      case 'supersede': {
        const old = this.slot(Number(args[0]), Number(args[1]));
        const s = new Slot(this, old.round, old.slot, old.agentId);
        s.open();
        const list = this.extra.get(old.round) || [];
        list.push(s);
        this.extra.set(old.round, list);
        return log('superseding', old.tag());
      }
      case 'release':
        return this.slot(Number(args[0]), Number(args[1])).cancel('paused-ending');
      case 'finish': {
        const round = Number(args[0]);
        for (const s of [...(this.rounds.get(round) || []), ...(this.extra.get(round) || [])]) {
          s.finish();
        }
        this.rounds.delete(round);
        this.extra.delete(round);
        return log('finished', { round });
      }
      case 'exit':
        this.client.close();
        log('exit', { code: 0 });
        return setTimeout(() => process.exit(0), 50);
      default:
        throw new Error(`unknown command '${command}'`);
    }
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
  const root = protobuf.loadSync(opts.proto);
  const types = { AgentMessage: root.lookupType('coven.AgentMessage'), ServerMessage: root.lookupType('coven.ServerMessage') };
  const shared = new Shared(opts, loadCoven(opts.proto), types);
  log('ready', { node: process.version, grpc_js: require('@grpc/grpc-js/package.json').version });
  const input = readline.createInterface({ input: process.stdin });
  input.on('line', (line) => {
    if (!line.trim()) {
      return;
    }
    try {
      shared.handle(line);
    } catch (err) {
      log('command-failed', { command: line, error: err.message });
    }
  });
  // the test going away (its end of stdin closes) ends this process too
  input.on('close', () => process.exit(0));
}

main();

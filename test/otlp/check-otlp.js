// check-otlp.js - is a file of `ccsg export --format=otlp` an
// ExportTraceServiceRequest of the official opentelemetry-proto
// definitions, in the OTLP/JSON mapping?
//
//   node test/otlp/check-otlp.js TOOLS FILE
//
// TOOLS is the directory scripts/setup.sh installs the npm tools in
// (.npm-tools): protobufjs and the .proto files of opentelemetry-proto.
// The OTLP/JSON mapping is protobuf's JSON mapping but for trace and span
// ids, which are hex, not base64.  Each object is checked field by field
// against its message type (an unknown field, a value of the wrong kind,
// an enum number the enum lacks, an id of the wrong length is an error:
// protobufjs's fromObject would drop or coerce them), then the request
// goes through protobufjs: fromObject(), verify(), encode(), decode() and
// toObject() must give back what was read.  Prints one line; exit status
// 0 when valid, 1 with the first error.
'use strict';
const fs = require('fs');
const path = require('path');

const [toolsArg, file] = process.argv.slice(2);
const tools = toolsArg && path.resolve(toolsArg);
if (!tools || !file) {
	console.error('usage: node check-otlp.js TOOLS FILE');
	process.exit(2);
}
const protobuf = require(path.join(tools, 'node_modules', 'protobufjs'));
const protos = path.join(tools, 'node_modules', '@opentelemetry',
	'otlp-grpc-exporter-base', 'build', 'protos');

const root = new protobuf.Root();
root.resolvePath = (origin, target) => path.join(protos, target);
root.loadSync('opentelemetry/proto/collector/trace/v1/trace_service.proto');
root.resolveAll();
const Request = root.lookupType(
	'opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');

function die(msg) {
	console.log('otlp: INVALID: ' + msg);
	process.exit(1);
}

const LONG = new Set(['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);
const INT = new Set(['int32', 'uint32', 'sint32', 'fixed32', 'sfixed32']);
const ID_BYTES = { traceId: 16, spanId: 8, parentSpanId: 8 };

// Check obj against type, field by field; convert hex ids to base64 in
// place (protobuf's JSON mapping of bytes).
function check(type, obj, where) {
	if (obj === null || typeof obj !== 'object' || Array.isArray(obj))
		die(`${where}: not an object`);
	const byJson = {};
	for (const f of type.fieldsArray)
		byJson[f.name] = f; // protobufjs camelCases by default
	for (const [k, v] of Object.entries(obj)) {
		const f = byJson[k];
		if (!f)
			die(`${where}: no field '${k}' in ${type.fullName}`);
		const w = `${where}.${k}`;
		if (f.repeated) {
			if (!Array.isArray(v))
				die(`${w}: not an array`);
			v.forEach((x, i) => {
				const r = value(f, x, `${w}[${i}]`);
				if (r !== undefined)
					v[i] = r;
			});
		} else {
			const r = value(f, v, w);
			if (r !== undefined)
				obj[k] = r;
		}
	}
	if (type.oneofsArray.length)
		for (const o of type.oneofsArray) {
			const set = o.fieldsArray.filter(f => obj[f.name] !== undefined);
			if (set.length > 1)
				die(`${where}: oneof ${o.name} set ${set.length} times`);
		}
}

function value(f, v, w) {
	const t = f.resolvedType;
	if (t instanceof protobuf.Type) {
		check(t, v, w);
		return undefined;
	}
	if (t instanceof protobuf.Enum) {
		if (!Number.isInteger(v) || !Object.values(t.values).includes(v))
			die(`${w}: ${JSON.stringify(v)} is not a value of ${t.name}`);
		return undefined;
	}
	if (f.type === 'bytes') {
		const n = ID_BYTES[f.name];
		if (n === undefined)
			die(`${w}: bytes field not an id`);
		if (typeof v !== 'string' || !new RegExp(`^[0-9a-f]{${2 * n}}$`).test(v))
			die(`${w}: '${v}' is not ${2 * n} lowercase hex digits`);
		if (/^0+$/.test(v))
			die(`${w}: an all-zero id is invalid`);
		return Buffer.from(v, 'hex').toString('base64');
	}
	if (LONG.has(f.type)) {
		if (typeof v !== 'string' || !/^-?[0-9]+$/.test(v))
			die(`${w}: a 64-bit integer must be a decimal string, not ${JSON.stringify(v)}`);
		return undefined;
	}
	if (INT.has(f.type)) {
		if (!Number.isInteger(v))
			die(`${w}: not an integer`);
		return undefined;
	}
	if (f.type === 'string') {
		if (typeof v !== 'string')
			die(`${w}: not a string`);
		return undefined;
	}
	if (f.type === 'double' || f.type === 'float') {
		if (typeof v !== 'number')
			die(`${w}: not a number`);
		return undefined;
	}
	if (f.type === 'bool') {
		if (typeof v !== 'boolean')
			die(`${w}: not a boolean`);
		return undefined;
	}
	die(`${w}: type ${f.type} not expected`);
}

function same(a, b, w) {
	if (typeof a !== typeof b)
		die(`round trip: ${w}: ${JSON.stringify(a)} became ${JSON.stringify(b)}`);
	if (a && typeof a === 'object') {
		const ka = Object.keys(a).sort(), kb = Object.keys(b).sort();
		if (ka.join() !== kb.join())
			die(`round trip: ${w}: fields ${ka} became ${kb}`);
		for (const k of ka)
			same(a[k], b[k], `${w}.${k}`);
	} else if (a !== b) {
		die(`round trip: ${w}: ${JSON.stringify(a)} became ${JSON.stringify(b)}`);
	}
}

let doc;
try {
	doc = JSON.parse(fs.readFileSync(file, 'utf8'));
} catch (e) {
	die(`not JSON: ${e.message}`);
}
check(Request, doc, 'request');
// fromObject() takes the JSON mapping's strings for 64-bit integers,
// verify() the message it makes (Longs)
const msg = Request.fromObject(doc);
const err = Request.verify(msg);
if (err)
	die(`verify: ${err}`);
const bytes = Request.encode(msg).finish();
const back = Request.toObject(Request.decode(bytes),
	{ longs: String, enums: Number, bytes: String });
same(doc, back, 'request');
let spans = 0;
for (const rs of doc.resourceSpans || [])
	for (const ss of rs.scopeSpans || [])
		spans += (ss.spans || []).length;
console.log(`otlp: valid ExportTraceServiceRequest: ${(doc.resourceSpans || []).length} resources, ${spans} spans, ${bytes.length} bytes of protobuf`);

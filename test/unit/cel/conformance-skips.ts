// The one list of conformance cases the engine does not run, each with the reason: features outside the filter language.
//
// The filter language is CEL's core over JSON-shaped records: scalars, lists, maps, the
// standard operators, macros, string functions, conversions and the network extension. Protobuf
// messages, well-known and wrapper types, enums, timestamps and durations, optional types and the
// other extension libraries are not part of it, and the conformance cases that need them are
// listed here. Every key must name a real file, section or case (the conformance test checks).

const PROTO = 'protobuf messages (TestAllTypes and friends): records are JSON objects, not protobuf messages';
const WRAPPERS = 'protobuf wrapper and well-known types (google.protobuf.*Value, Struct, ListValue, Any)';
const TIME = 'timestamp and duration types are not part of the filter language';
const OPTIONAL = 'optional types (optional.of, ?. and [?]) are not part of the filter language';

/** Whole files ("file") or sections ("file/section"). */
export const SKIPPED_SECTIONS: Readonly<Record<string, string>> = {
  bindings_ext: 'cel.bind() belongs to the bindings extension, not the filter language',
  block_ext: 'cel.block() belongs to cel-go\'s internal block extension, not the filter language',
  'comparisons/eq_wrapper': WRAPPERS,
  dynamic: `${WRAPPERS}, and message fields holding them`,
  encoders_ext: 'base64 encoding belongs to the encoders extension, not the filter language',
  enums: 'protobuf enums',
  'fields/quoted_map_fields':
    'backtick-quoted field names (a.`b-c`): the parser the engine uses (@bufbuild/cel) does not accept them',
  macros2: 'two-variable comprehensions belong to the comprehensions extension, not the filter language',
  math_ext: 'math.greatest, math.abs, bit operations etc. belong to the math extension, not the filter language',
  namespace: 'containers (namespaced identifiers) exist to resolve protobuf package names',
  optionals: OPTIONAL,
  'parse/struct_field_names': `${PROTO}; every case constructs a message`,
  'parse/whitespace': `${PROTO}; every case constructs a message`,
  'parse/comments': `${PROTO}; the case constructs a message`,
  proto2: PROTO,
  proto2_ext: `${PROTO} and proto2 extensions`,
  proto3: PROTO,
  string_ext: 'charAt, indexOf, format, quote etc. belong to the strings extension, not the filter language',
  timestamps: TIME,
  wrappers: WRAPPERS,
  'type_deductions/field_access': PROTO,
  'type_deductions/wrappers': WRAPPERS,
  'type_deductions/legacy_nullable_types': `${PROTO}, timestamps, durations and optional types`,
  'type_deductions/type_parameters': 'the cases declare their own functions (tuple, sort) in the test environment',
};

/** Single cases, keyed "file/section/case". */
export const SKIPPED_CASES: Readonly<Record<string, string>> = {
  'comparisons/eq_literal/eq_dyn_json_null': WRAPPERS,
  'comparisons/eq_literal/not_eq_dyn_duration_null': TIME,
  'comparisons/eq_literal/not_eq_dyn_timestamp_null': TIME,
  'comparisons/eq_literal/not_eq_dyn_proto2_msg_null': PROTO,
  'comparisons/eq_literal/not_eq_dyn_proto3_msg_null': PROTO,
  'comparisons/ne_literal/ne_proto2': PROTO,
  'comparisons/ne_literal/ne_proto3': PROTO,
  'comparisons/ne_literal/ne_proto2_missing_fields_neq': PROTO,
  'comparisons/ne_literal/ne_proto3_missing_fields_neq': PROTO,
  'comparisons/ne_literal/ne_proto_nan_not_equal': PROTO,
  'comparisons/ne_literal/ne_proto_different_types': PROTO,
  'comparisons/ne_literal/ne_proto2_any_unpack': WRAPPERS,
  'comparisons/ne_literal/ne_proto2_any_unpack_bytewise_fallback': WRAPPERS,
  'comparisons/ne_literal/ne_proto3_any_unpack': WRAPPERS,
  'comparisons/ne_literal/ne_proto3_any_unpack_bytewise_fallback': WRAPPERS,
  'conversions/int/timestamp': TIME,
  'conversions/identity/duration': TIME,
  'conversions/identity/timestamp': TIME,
  'parse/nest/message_literal': PROTO,
  'parse/repeat/select': PROTO,
  'parse/repeat/message_literal': PROTO,
  'type_deductions/complex_initializers/struct': PROTO,
  'type_deductions/functions/function_result_type': 'the case declares its own function (fn) in the test environment',
  'type_deductions/flexible_type_parameter_assignment/comprehension_type_var_aliasing': PROTO,
  'type_deductions/flexible_type_parameter_assignment/overload_type_var_aliasing': PROTO,
  'type_deductions/flexible_type_parameter_assignment/list_parameters_do_not_unify': WRAPPERS,
  'type_deductions/flexible_type_parameter_assignment/optional_none': OPTIONAL,
  'type_deductions/flexible_type_parameter_assignment/optional_none_2': OPTIONAL,
  'type_deductions/flexible_type_parameter_assignment/optional_dyn_promotion': OPTIONAL,
  'type_deductions/flexible_type_parameter_assignment/optional_dyn_promotion_2': OPTIONAL,
  'type_deductions/flexible_type_parameter_assignment/optional_in_ternary': OPTIONAL,
};

export function skipReason(key: string): string | undefined {
  const [file, section] = key.split('/');
  return SKIPPED_CASES[key] ?? SKIPPED_SECTIONS[`${file}/${section}`] ?? SKIPPED_SECTIONS[file as string];
}

; References in C (and, through `; inherits: c`, C++): calls, `#include "..."`, other uses of names.
; Capture names are the contract read by maguyva_lsp/parse/ref_query.py (see its module docstring).

; ---- calls -------------------------------------------------------------------------------------------------------
(call_expression function: (identifier) @call)
(call_expression function: (field_expression argument: (_) @call.receiver field: (field_identifier) @call))

; ---- includes (quoted ones: the project's own headers) ----------------------------------------------------------
(preproc_include path: (string_literal (string_content) @import.module))
(preproc_include) @skip.subtree

; ---- other uses of names -----------------------------------------------------------------------------------------
(field_expression argument: (_) @reference.receiver field: (field_identifier) @reference)
(type_identifier) @reference
(identifier) @reference

; ---- scopes and the names bound in them --------------------------------------------------------------------------
(function_definition) @local.scope

(parameter_declaration declarator: (identifier) @local.binding)
(parameter_declaration declarator: (pointer_declarator declarator: (identifier) @local.binding))
(parameter_declaration declarator: (array_declarator declarator: (identifier) @local.binding))
(init_declarator declarator: (identifier) @local.binding)
(init_declarator declarator: (pointer_declarator declarator: (identifier) @local.binding))
(declaration declarator: (identifier) @local.binding)
(declaration declarator: (pointer_declarator declarator: (identifier) @local.binding))
(function_declarator declarator: (identifier) @skip)
(preproc_def name: (identifier) @skip)
(preproc_function_def name: (identifier) @skip)

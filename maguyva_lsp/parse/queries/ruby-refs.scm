; References in Ruby: method calls (with and without a receiver), `require`, superclasses and mixins, constants.
; Capture names are the contract read by maguyva_lsp/parse/ref_query.py (see its module docstring).

; ---- calls -------------------------------------------------------------------------------------------------------
(call !receiver method: (identifier) @call)
(call receiver: _ @call.receiver method: (identifier) @call)
(call receiver: _ @call.receiver method: (constant) @call)

; ---- require / require_relative ----------------------------------------------------------------------------------
(call
  method: (identifier) @_require (#eq? @_require "require_relative")
  arguments: (argument_list . (string (string_content) @import.module)))
(call
  method: (identifier) @_require (#eq? @_require "require")
  arguments: (argument_list . (string (string_content) @import.module)))

; ---- superclass and mixins ---------------------------------------------------------------------------------------
(superclass (constant) @inherit)
(superclass (scope_resolution scope: (_) @inherit.receiver name: (constant) @inherit))
(call
  method: (identifier) @_mixin (#any-of? @_mixin "include" "extend" "prepend")
  arguments: (argument_list (constant) @inherit))

; ---- other uses of names -----------------------------------------------------------------------------------------
(scope_resolution scope: (_) @reference.receiver name: (constant) @reference)
(constant) @reference
(identifier) @reference

; ---- scopes and the names bound in them --------------------------------------------------------------------------
(method) @local.scope
(singleton_method) @local.scope
(block) @local.scope
(do_block) @local.scope
(lambda) @local.scope

(method_parameters (identifier) @local.binding)
(block_parameters (identifier) @local.binding)
(lambda_parameters (identifier) @local.binding)
(optional_parameter name: (identifier) @local.binding)
(keyword_parameter name: (identifier) @local.binding)
(splat_parameter name: (identifier) @local.binding)
(assignment left: (identifier) @local.binding)
(operator_assignment left: (identifier) @local.binding)

; References in Python: calls, imports, base classes, other uses of names, and the local bindings that shadow them.
; Capture names are the contract read by maguyva_lsp/parse/references.py (see its module docstring).

; ---- calls -------------------------------------------------------------------------------------------------------
(call function: (identifier) @call)
(call function: (attribute object: (_) @call.receiver attribute: (identifier) @call))

; ---- base classes ------------------------------------------------------------------------------------------------
(class_definition superclasses: (argument_list (identifier) @inherit))
(class_definition superclasses: (argument_list (attribute object: (_) @inherit.receiver attribute: (identifier) @inherit)))
(class_definition superclasses: (argument_list (subscript value: (identifier) @inherit)))
(class_definition superclasses: (argument_list (keyword_argument name: (identifier) @skip)))

; ---- imports -----------------------------------------------------------------------------------------------------
(import_statement name: (dotted_name) @import.module)
(import_statement name: (aliased_import name: (dotted_name) @import.module alias: (identifier) @import.alias))
(import_from_statement module_name: (_) @import.from name: (dotted_name) @import)
(import_from_statement
  module_name: (_) @import.from
  name: (aliased_import name: (dotted_name) @import alias: (identifier) @import.alias))
(import_from_statement module_name: (_) @import.from (wildcard_import) @import)
(import_statement) @skip.subtree
(import_from_statement) @skip.subtree
(future_import_statement) @skip.subtree

; ---- other uses of names (values, attributes, annotations, decorators) ------------------------------------------
(attribute object: (_) @reference.receiver attribute: (identifier) @reference)
(identifier) @reference

; ---- never a use -------------------------------------------------------------------------------------------------
(keyword_argument name: (identifier) @skip)
(global_statement (identifier) @skip)
(nonlocal_statement (identifier) @skip)

; ---- scopes and the names bound in them --------------------------------------------------------------------------
(function_definition) @local.scope
(lambda) @local.scope
(list_comprehension) @local.scope
(set_comprehension) @local.scope
(dictionary_comprehension) @local.scope
(generator_expression) @local.scope
(class_definition body: (_) @local.scope.class)

(parameters (identifier) @local.binding)
(lambda_parameters (identifier) @local.binding)
(typed_parameter (identifier) @local.binding)
(default_parameter name: (identifier) @local.binding)
(typed_default_parameter name: (identifier) @local.binding)
(list_splat_pattern (identifier) @local.binding)
(dictionary_splat_pattern (identifier) @local.binding)
(assignment left: (identifier) @local.binding)
(assignment left: (pattern_list (identifier) @local.binding))
(assignment left: (tuple_pattern (identifier) @local.binding))
(assignment left: (list_pattern (identifier) @local.binding))
(augmented_assignment left: (identifier) @local.binding)
(for_statement left: (identifier) @local.binding)
(for_statement left: (pattern_list (identifier) @local.binding))
(for_statement left: (tuple_pattern (identifier) @local.binding))
(for_in_clause left: (identifier) @local.binding)
(for_in_clause left: (pattern_list (identifier) @local.binding))
(for_in_clause left: (tuple_pattern (identifier) @local.binding))
(as_pattern_target (identifier) @local.binding)
(named_expression name: (identifier) @local.binding)
(pattern_list (identifier) @local.binding)
(tuple_pattern (identifier) @local.binding)

; ---- evident types of variables: an annotation, or a call assigned (a constructor when it names a class) ---------
(typed_parameter (identifier) @type.binding type: (type [(identifier) (attribute)] @type.annotation))
(typed_parameter (identifier) @type.binding type: (type (string (string_content) @type.annotation)))
(typed_default_parameter name: (identifier) @type.binding type: (type [(identifier) (attribute)] @type.annotation))
(assignment left: (identifier) @type.binding type: (type [(identifier) (attribute)] @type.annotation))
(assignment left: (identifier) @type.binding !type right: (call function: [(identifier) (attribute)] @type.call))
(assignment
  left: (identifier) @type.binding
  right: (assignment right: (call function: [(identifier) (attribute)] @type.call)))
(assignment
  left: (attribute object: (identifier) @_self (#eq? @_self "self") attribute: (identifier) @type.member)
  right: (call function: [(identifier) (attribute)] @type.call))
(assignment
  left: (attribute object: (identifier) @_self (#eq? @_self "self") attribute: (identifier) @type.member)
  right: (assignment right: (call function: [(identifier) (attribute)] @type.call)))
(class_definition body: (block (expression_statement
  (assignment left: (identifier) @type.member type: (type [(identifier) (attribute)] @type.annotation)))))
(assignment left: (attribute object: (identifier) @_self (#eq? @_self "self") attribute: (identifier) @local.member))

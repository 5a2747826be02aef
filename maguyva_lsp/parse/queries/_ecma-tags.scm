; Definitions shared by JavaScript, TypeScript and TSX (names use wildcards where the grammars differ).
; Kinds and capture conventions: maguyva_lsp/parse/tags.py.

(function_declaration
  name: (_) @name) @definition.function

(generator_function_declaration
  name: (_) @name) @definition.function

(class_declaration
  name: (_) @name) @definition.class

(method_definition
  name: [(property_identifier) (private_property_identifier)] @name) @definition.method

; Methods named by a string: `'~=' (x) {}`, `get ['async']() {}`.
(method_definition
  name: [
    (string (string_fragment) @name)
    (computed_property_name (string (string_fragment) @name))
  ]) @definition.method

; Functions and classes bound to a name: `const f = () => {}`, `let g = function () {}`, `const K = class {}`.
(variable_declarator
  name: (identifier) @name
  value: [(arrow_function) (function_expression) (generator_function)]) @definition.function

(variable_declarator
  name: (identifier) @name
  value: (class)) @definition.class

; Module-level constants: `const X = ...` at the top level, exported or not.
(program
  (lexical_declaration
    kind: "const"
    (variable_declarator
      name: (identifier) @name) @definition.constant))

(program
  (export_statement
    declaration: (lexical_declaration
      kind: "const"
      (variable_declarator
        name: (identifier) @name) @definition.constant)))

; ---- functions bound to a name outside a declaration -------------------------------------------------------------
; The patterns above win over these for the same node and name. (`#not-any-of?` is not applied by py-tree-sitter
; 0.26: exclusions are written with `#not-match?`.) A named function expression bound by one of these to
; the same name (`app.use = function use() {}`) is one definition: tags.py keeps the binding.

; `Foo.prototype.bar = function () {}`: a method of Foo.
(assignment_expression
  left: (member_expression
    object: (member_expression
      object: (identifier) @scope
      property: (property_identifier) @_prototype)
    property: (property_identifier) @name)
  right: [(function_expression) (arrow_function) (generator_function)]
  (#eq? @_prototype "prototype")) @definition.method

; `exports.x = function () {}`, `module.exports.x = () => {}`, `this.x = ...`, `window.x = ...`: a function.
(assignment_expression
  left: (member_expression
    object: [(identifier) (member_expression) (this)] @_object
    property: (property_identifier) @name)
  right: [(function_expression) (arrow_function) (generator_function)]
  (#any-of? @_object "exports" "module.exports" "this" "window" "global" "globalThis" "self")) @definition.function

; `app.use = function use() {}`, `res.locals.render = ...`: a method of that object (named by it when it is a dotted
; name; `make().x = ...` is a method of nothing named).
(assignment_expression
  left: (member_expression
    object: [(identifier) (member_expression)] @scope
    property: (property_identifier) @name)
  right: [(function_expression) (arrow_function) (generator_function)]
  (#match? @scope "^[A-Za-z_$][A-Za-z0-9_$]*(\\.[A-Za-z_$][A-Za-z0-9_$]*)*$")
  (#not-match? @scope "^(exports|module\\.exports|window|global|globalThis|self)$")) @definition.method

(assignment_expression
  left: (member_expression
    property: (property_identifier) @name)
  right: [(function_expression) (arrow_function) (generator_function)]) @definition.method

; `handler = function () {}` (declared earlier).
(assignment_expression
  left: (identifier) @name
  right: [(function_expression) (arrow_function) (generator_function)]) @definition.function

; Object-literal members holding a function: `{ toJSON: function () {}, 'x-y': () => {} }` (`{ m() {} }` is a
; method_definition above). The `get`/`set` of a property descriptor are named by the property, below.
(pair
  key: (property_identifier) @name
  value: [(function_expression) (arrow_function) (generator_function)]
  (#not-match? @name "^[gs]et$")) @definition.method

(pair
  key: (string (string_fragment) @name)
  value: [(function_expression) (arrow_function) (generator_function)]) @definition.method

; Properties defined by a call: `Object.defineProperty(obj, 'name', { get() {} })` (not the `exports` re-export
; getters compiled TypeScript writes), `Object.defineProperties(obj, { name: { get() {} } })`, a helper named
; define... (`defineGetter(req, 'host', function () {})`), `obj.__defineGetter__('name', function () {})`.
(call_expression
  function: (member_expression
    object: (identifier) @_object
    property: (property_identifier) @_define)
  arguments: (arguments
    .
    [(identifier) (member_expression)] @scope
    .
    (string (string_fragment) @name)
    .
    (object))
  (#any-of? @_object "Object" "Reflect")
  (#eq? @_define "defineProperty")
  (#match? @scope "^[A-Za-z_$][A-Za-z0-9_$]*(\\.[A-Za-z_$][A-Za-z0-9_$]*)*$")
  (#not-match? @scope "^(exports|module\\.exports)$")) @definition.method

(call_expression
  function: (member_expression
    object: (identifier) @_object
    property: (property_identifier) @_define)
  arguments: (arguments
    .
    (_) @_target
    .
    (string (string_fragment) @name)
    .
    (object))
  (#any-of? @_object "Object" "Reflect")
  (#eq? @_define "defineProperty")
  (#not-match? @_target "^(exports|module\\.exports)$")) @definition.method

(call_expression
  function: (member_expression
    object: (identifier) @_object
    property: (property_identifier) @_define)
  arguments: (arguments
    .
    [(identifier) (member_expression)] @scope
    .
    (object
      (pair
        key: [(property_identifier) (string (string_fragment))] @name
        value: (object)) @definition.method))
  (#eq? @_object "Object")
  (#eq? @_define "defineProperties")
  (#match? @scope "^[A-Za-z_$][A-Za-z0-9_$]*(\\.[A-Za-z_$][A-Za-z0-9_$]*)*$")
  (#not-match? @scope "^(exports|module\\.exports)$"))

(call_expression
  function: [
    (identifier) @_define
    (member_expression property: (property_identifier) @_define)
  ]
  arguments: (arguments
    .
    [(identifier) (member_expression)] @scope
    .
    (string (string_fragment) @name)
    .
    [(function_expression) (arrow_function) (object)])
  (#match? @_define "^_*[dD]efine[A-Z]")
  (#match? @scope "^[A-Za-z_$][A-Za-z0-9_$]*(\\.[A-Za-z_$][A-Za-z0-9_$]*)*$")
  (#not-match? @_define "^define(Property|Properties)$")) @definition.method

(call_expression
  function: [
    (identifier) @_define
    (member_expression property: (property_identifier) @_define)
  ]
  arguments: (arguments
    .
    (_)
    .
    (string (string_fragment) @name)
    .
    [(function_expression) (arrow_function) (object)])
  (#match? @_define "^_*[dD]efine[A-Z]")
  (#not-match? @_define "^define(Property|Properties)$")) @definition.method

(call_expression
  function: (member_expression property: (property_identifier) @_define)
  arguments: (arguments
    .
    (string (string_fragment) @name)
    .
    [(function_expression) (arrow_function)])
  (#any-of? @_define "__defineGetter__" "__defineSetter__")) @definition.method

; Named function and class expressions anywhere: callbacks (`onFinished(res, function onfinish(err) {})`), values
; (`return function generateETag() {}`), IIFEs.
(function_expression
  name: (identifier) @name) @definition.function

(generator_function
  name: (identifier) @name) @definition.function

(class
  name: (_) @name) @definition.class

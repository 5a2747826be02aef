; inherits: _ecma, _jsx
; References in JavaScript: the shared ECMAScript patterns, JSX, and `extends`.

(class_heritage (identifier) @inherit)
(class_heritage (member_expression object: (_) @inherit.receiver property: (property_identifier) @inherit))

(formal_parameters (identifier) @local.binding)
(formal_parameters (assignment_pattern left: (identifier) @local.binding))
(formal_parameters (rest_pattern (identifier) @local.binding))

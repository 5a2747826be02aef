; JSX elements (JavaScript and TSX): rendering a component counts as calling it.
(jsx_opening_element name: (identifier) @call)
(jsx_self_closing_element name: (identifier) @call)
(jsx_opening_element name: (member_expression object: (_) @call.receiver property: (property_identifier) @call))
(jsx_self_closing_element
  name: (member_expression object: (_) @call.receiver property: (property_identifier) @call))

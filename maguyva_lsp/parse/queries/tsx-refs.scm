; inherits: typescript, _jsx
; References in TSX: TypeScript plus JSX.

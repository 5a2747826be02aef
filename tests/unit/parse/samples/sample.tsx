import React from "react";

interface ButtonProps {
  label: string;
}

export const Button = ({ label }: ButtonProps) => {
  return <button>{label}</button>;
};

export default function App(): JSX.Element {
  return <Button label="hi" />;
}

class Counter extends React.Component<{}, { n: number }> {
  render() {
    return <div>{this.state.n}</div>;
  }
}

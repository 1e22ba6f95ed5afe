"""Time travel: the model's context at message N, checked against real zett-agent."""

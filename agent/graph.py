"""The ReWOO graph: ``plan`` -> ``run_step`` (once per plan step) -> ``solve``; see :mod:`agent.nodes`."""

from __future__ import annotations

from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from agent.context import AgentDeps
from agent.nodes import plan, route_after_step, run_step, solve
from agent.state import AgentState

AgentGraph = CompiledStateGraph[AgentState, AgentDeps, Any, Any]
"""The compiled agent; run it with ``context=`` an :class:`~agent.context.AgentDeps`."""


def build_graph(checkpointer: BaseCheckpointSaver[Any] | None = None) -> AgentGraph:
    """Compile the agent graph; ``checkpointer`` (optional) persists each thread's state by thread id.

    The graph holds no dependencies: every run passes them as LangGraph's runtime context
    (``graph.stream(state, config, context=deps)``), so one compiled graph serves any database.
    """
    graph = StateGraph(AgentState, context_schema=AgentDeps)
    graph.add_node("plan", plan)
    graph.add_node("run_step", run_step)
    graph.add_node("solve", solve)
    graph.add_edge(START, "plan")
    graph.add_edge("plan", "run_step")
    graph.add_conditional_edges("run_step", route_after_step)
    graph.add_edge("solve", END)
    return graph.compile(checkpointer=checkpointer)

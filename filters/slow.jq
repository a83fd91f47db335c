# model results slower than $ms milliseconds (latency_ms), agents and runs that took longer (wall_seconds)
def slow($ms):
  (.kind == "model_result" and .payload.latency_ms >= $ms)
  or ((.kind == "agent_finished" or .kind == "run_finished")
      and (.payload.wall_seconds | type == "number") and .payload.wall_seconds * 1000 >= $ms);

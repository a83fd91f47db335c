# run and agent start and finish: run_started, agent_spawned, agent_finished, run_finished, the prompt's response and done (agent_end)
def lifecycle:
  .kind == "run_started" or .kind == "agent_spawned" or .kind == "agent_finished" or .kind == "run_finished"
  or .kind == "agent_end" or (.kind == "response" and .payload.command == "prompt")
  or .type == "done" or (.type == "response" and .command == "prompt");

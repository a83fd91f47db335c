# events of the agent $id (agent_id: "parent", an agent's id, "" for the session)
def agent($id): .agent_id == $id;

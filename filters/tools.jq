# complete tool calls: run-log and zot2gp tool_call events, raw zot tool_call lines
def tools: .kind == "tool_call" or .type == "tool_call";

# tool calls of the tool named $name (run-log payload.tool, zot name)
def tool($name):
  (.kind == "tool_call" and (.payload.tool == $name or .payload.name == $name))
  or (.type == "tool_call" and .name == $name);

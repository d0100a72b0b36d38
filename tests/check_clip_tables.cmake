# Fails when the committed data/arch/clip_{projectors,keys,tensors,outputs}.def
# differ from what data/arch/clipgen.py generates from the llama.cpp tree the
# tables were made from. The tree is not part of the project: its directory
# comes from the environment (GGUFLINT_LLAMA_TREE) or is ../shared/llama.cpp
# next to the source tree; without it (or without python3) the test is
# skipped (it prints "SKIP:", which the test's SKIP_REGULAR_EXPRESSION
# matches).
# Regenerate with: python3 data/arch/clipgen.py LLAMA_TREE data/arch
set(src "$ENV{GGUFLINT_LLAMA_TREE}")
if(src STREQUAL "")
  get_filename_component(src "${SOURCE}/../shared/llama.cpp" ABSOLUTE)
endif()
if(NOT EXISTS "${src}/tools/mtmd/clip.cpp" OR PYTHON STREQUAL "")
  message("SKIP: no llama.cpp tree at ${src} (set GGUFLINT_LLAMA_TREE) or no python3")
  return()
endif()
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")
execute_process(COMMAND ${PYTHON} ${SOURCE}/data/arch/clipgen.py ${src} ${OUT}
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "clipgen.py failed (${rc}): ${err}")
endif()
foreach(f clip_projectors.def clip_keys.def clip_tensors.def clip_outputs.def)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT}/${f} ${SOURCE}/data/arch/${f}
                  RESULT_VARIABLE diff)
  if(NOT diff EQUAL 0)
    message(FATAL_ERROR "data/arch/${f} is stale: run `python3 data/arch/clipgen.py ${src} data/arch`")
  endif()
endforeach()
message("data/arch/clip_*.def match clipgen.py's output from ${src}")

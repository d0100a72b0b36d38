# Fails when the committed data/arch/gen_*.def differ from what
# data/arch/archgen.py generates from the llama.cpp tree they were stamped
# with (GEN_STAMP in gen_archs.def). The tree is not part of the project: its
# directory comes from the environment (GGUFLINT_LLAMA_SRC) or is
# ../shared/llama.cpp next to the source tree; without it (or without
# python3) the test is skipped (it prints "SKIP:", which the test's
# SKIP_REGULAR_EXPRESSION matches).
# Regenerate with: python3 data/arch/archgen.py ../shared/llama.cpp data/arch
set(src "$ENV{GGUFLINT_LLAMA_SRC}")
if(src STREQUAL "")
  get_filename_component(src "${SOURCE}/../shared/llama.cpp" ABSOLUTE)
endif()
if(NOT EXISTS "${src}/src/llama-model.cpp" OR NOT EXISTS "${src}/src/models/models.h"
   OR PYTHON STREQUAL "")
  message("SKIP: no llama.cpp tree with per-model loaders at ${src} (set GGUFLINT_LLAMA_SRC) "
          "or no python3")
  return()
endif()
file(REMOVE_RECURSE "${OUT}")
file(MAKE_DIRECTORY "${OUT}")
execute_process(COMMAND ${PYTHON} ${SOURCE}/data/arch/archgen.py ${src} ${OUT}
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "archgen.py failed (${rc}): ${err}")
endif()
set(files gen_archs.def gen_keys.def gen_syms.def gen_tensors.def gen_gguf_py.def)
# the gguf-py consistency report, when the copy holds gguf-py's constants.py
if(EXISTS "${src}/gguf-py/gguf/constants.py")
  list(APPEND files gguf_py_report.txt)
endif()
foreach(f ${files})
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT}/${f} ${SOURCE}/data/arch/${f}
                  RESULT_VARIABLE diff)
  if(NOT diff EQUAL 0)
    message(FATAL_ERROR "data/arch/${f} is stale: run `python3 data/arch/archgen.py ${src} data/arch` "
            "(a tree of another commit than the stamp's also differs: say which one in the commit)")
  endif()
endforeach()
message("data/arch/gen_*.def match archgen.py's output from ${src}")

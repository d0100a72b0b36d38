# Regenerates corpus/seed and corpus/regressions into OUT with gen_corpus and
# compares them file by file (names and bytes) with the committed COMMITTED
# directory. Regenerate with, from the source root:
#   build-dev/tests/gen_corpus corpus
# (remove corpus/seed and corpus/regressions first when a file was renamed or
# dropped from the generator).
set(regen "build-dev/tests/gen_corpus corpus (from the source root; delete corpus/seed and corpus/regressions first if files were renamed or removed)")
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
execute_process(COMMAND ${GEN} ${OUT} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gen_corpus failed: ${rc}")
endif()
set(problems "")
foreach(sub seed regressions)
  file(GLOB generated RELATIVE ${OUT}/${sub} ${OUT}/${sub}/*)
  file(GLOB committed RELATIVE ${COMMITTED}/${sub} ${COMMITTED}/${sub}/*)
  list(SORT generated)
  list(SORT committed)
  foreach(name ${generated})
    if(NOT EXISTS ${COMMITTED}/${sub}/${name})
      list(APPEND problems "corpus/${sub}/${name} is missing")
    else()
      execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files
                              ${OUT}/${sub}/${name} ${COMMITTED}/${sub}/${name}
                      RESULT_VARIABLE diff)
      if(NOT diff EQUAL 0)
        list(APPEND problems "corpus/${sub}/${name} differs")
      endif()
    endif()
  endforeach()
  foreach(name ${committed})
    list(FIND generated ${name} found)
    if(found EQUAL -1)
      list(APPEND problems "corpus/${sub}/${name} is not written by gen_corpus")
    endif()
  endforeach()
endforeach()
if(problems)
  list(LENGTH problems n)
  string(REPLACE ";" "\n  " shown "${problems}")
  message(FATAL_ERROR "the committed corpus is stale (${n} problems):\n  ${shown}\nregenerate with: ${regen}")
endif()

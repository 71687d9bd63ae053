# `adaexplore-tuner report` rendered in a real browser: headless Chromium opens the reports of a
# committed H200 tuning (tests/data/report: the gemm example's results with "finished" times and
# Nsight Compute profiles), of a replay trace made here from it, and of the same results with a
# stand-in for Chart.js that defines nothing (the tables-only page).
#   cmake -DTUNER=<adaexplore-tuner> -DDATA=<tests/data/report> -DWORK=<scratch folder> -P report_browser_test.cmake
# Checks, in the DOM after the page's scripts ran (chromium --dump-dom): no script error
# (data-report-errors), the page finished (data-report-status="ok"), the number of charts drawn
# (data-charts) and that none of their canvases is blank (data-blank-charts="0": report.js reads
# the pixels back), every section present; and that a screenshot (PNG) was written. Skipped, with
# the reason, where Chromium is missing (Debian: chromium). The charts are drawn by the Chart.js
# shipped with the tuner (third_party/chartjs/), or $ADAEXPLORE_CHARTJS.
foreach(var TUNER DATA WORK)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "report_browser_test.cmake: -D${var}=... is required")
  endif()
endforeach()

find_program(chromium NAMES chromium chromium-browser google-chrome-stable google-chrome)
if(NOT chromium)
  message(STATUS "ADAEXPLORE_TEST_SKIPPED: no Chromium (chromium, chromium-browser or google-chrome on PATH; Debian: apt-get install chromium)")
  return()
endif()
# The Chart.js shipped with the tuner (third_party/chartjs/, what a report gets on a machine without
# Debian's libjs-chart.js), unless $ADAEXPLORE_CHARTJS names another.
set(chartjs "$ENV{ADAEXPLORE_CHARTJS}")
if(chartjs STREQUAL "")
  get_filename_component(chartjs "${DATA}/../../../third_party/chartjs/chart.umd.min.js" ABSOLUTE)
endif()
if(NOT EXISTS "${chartjs}")
  message(FATAL_ERROR "no Chart.js at ${chartjs}: the copy shipped in third_party/chartjs/ is missing")
endif()

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
set(failed "")

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    set(failed "${failed}${what} exited with ${rc}:\n${out}\n${err}\n" PARENT_SCOPE)
  endif()
  set(run_out "${out}" PARENT_SCOPE)
endfunction()

# Chromium as root needs --no-sandbox; the virtual time budget lets the scripts finish before the
# DOM is dumped. Its own profile folder keeps it from the user's.
set(browser "${chromium}" --headless=new --no-sandbox --disable-gpu --hide-scrollbars --no-first-run
            "--user-data-dir=${WORK}/chromium-profile" --virtual-time-budget=20000)

# `page`: the HTML file; `charts_min`: fewest charts expected; `sections`: ids that must be there.
function(check_page name page charts_min)
  execute_process(COMMAND ${browser} --dump-dom "file://${page}" RESULT_VARIABLE rc OUTPUT_VARIABLE dom
                  ERROR_VARIABLE err TIMEOUT 120)
  file(WRITE "${WORK}/${name}.dom.html" "${dom}")
  set(problems "")
  if(NOT rc EQUAL 0)
    string(APPEND problems "chromium --dump-dom exited with ${rc}: ${err}\n")
  endif()
  if(dom MATCHES "data-report-errors=\"([0-9]+)\"")
    string(REGEX MATCH "id=\"report-errors\"[^>]*>[^<]*" message "${dom}")
    string(APPEND problems "${CMAKE_MATCH_1} script errors: ${message}\n")
  endif()
  if(NOT dom MATCHES "data-report-status=\"ok\"")
    string(APPEND problems "the report's script did not finish (no data-report-status=\"ok\" on <html>)\n")
  endif()
  if(NOT dom MATCHES "data-charts=\"([0-9]+)\"")
    string(APPEND problems "no data-charts attribute\n")
  elseif(CMAKE_MATCH_1 LESS charts_min)
    string(APPEND problems "${CMAKE_MATCH_1} charts drawn, expected at least ${charts_min}\n")
  endif()
  if(NOT dom MATCHES "data-blank-charts=\"0\"")
    string(REGEX MATCH "data-blank-charts=\"[0-9]+\"" blank "${dom}")
    string(APPEND problems "blank charts: ${blank}\n")
  endif()
  foreach(id winner search failures parameters rules pipeline profiles)
    if(NOT dom MATCHES "<section id=\"${id}\"")
      string(APPEND problems "no section ${id}\n")
    endif()
  endforeach()
  # What the page shows: the DOM before its first <script> (the rendered <main>; the scripts after
  # it hold the same words as code).
  string(FIND "${dom}" "<script" first_script)
  string(SUBSTRING "${dom}" 0 ${first_script} shown)
  foreach(text IN LISTS ARGN)
    string(FIND "${shown}" "${text}" at)
    if(at EQUAL -1)
      string(APPEND problems "the page does not say: ${text}\n")
    endif()
  endforeach()
  if(NOT problems STREQUAL "")
    set(failed "${failed}${name} (${page}, DOM in ${WORK}/${name}.dom.html):\n${problems}" PARENT_SCOPE)
  endif()
endfunction()

# 1. The committed H200 tuning, with its profiles: every chart drawn, and the winner's card.
run("report" "${TUNER}" report --spec "${DATA}/spec.json" --results "${DATA}/results.jsonl"
    --out "${WORK}/tuning.html" --chartjs "${chartjs}")
check_page(tuning "${WORK}/tuning.html" 12 "Chart.js" "achieved occupancy" "Warp stall reasons" "speedup over the defaults")
execute_process(COMMAND ${browser} --window-size=1280,6000 "--screenshot=${WORK}/tuning.png" "file://${WORK}/tuning.html"
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET TIMEOUT 120)
if(NOT EXISTS "${WORK}/tuning.png")
  string(APPEND failed "no screenshot written (chromium exited with ${rc})\n")
else()
  file(READ "${WORK}/tuning.png" magic LIMIT 8 HEX)
  file(SIZE "${WORK}/tuning.png" png_bytes)
  if(NOT magic STREQUAL "89504e470d0a1a0a" OR png_bytes LESS 100000)
    string(APPEND failed "the screenshot is not a PNG of a drawn page (${png_bytes} bytes, starts ${magic})\n")
  endif()
endif()

# 2. A replay trace of the same space: no wall time, no profiles, and the page says so.
run("replay" "${TUNER}" replay --spec "${DATA}/spec.json" --results "${DATA}/results.jsonl" --strategy adaexplore --budget 30 --seed 1
    --json "${WORK}/trace.json")
run("report --trace" "${TUNER}" report --trace "${WORK}/trace.json" --out "${WORK}/trace.html" --chartjs "${chartjs}")
check_page(trace "${WORK}/trace.html" 8 "A replay has no wall time." "nothing ran, so nothing was profiled")

# 3. Without a working Chart.js (a file with its banner that defines nothing): tables only, no
# script error, and the page says why the charts are missing.
file(WRITE "${WORK}/stub-chart.js" "/*!\n * Chart.js v3.9.1 (a stand-in that defines nothing)\n */\n")
run("report, stand-in Chart.js" "${TUNER}" report --spec "${DATA}/spec.json" --results "${DATA}/results.jsonl"
    --out "${WORK}/tables.html" --chartjs "${WORK}/stub-chart.js")
check_page(tables "${WORK}/tables.html" 0 "Charts are missing" "data-charts=\"0\"")

# 4. The same results with the model's beliefs in every success's record (extra.model, as `tune`
# records them since 2026-12-06; here one fixed prediction, 7.5 ms in 6 to 9 ms): the section
# "Predicted vs measured" with the finalists' predictions beside their measured times.
file(STRINGS "${DATA}/results.jsonl" lines)
set(believed "")
foreach(line IN LISTS lines)
  string(JSON status ERROR_VARIABLE no_status GET "${line}" status)
  if(NOT no_status AND (status STREQUAL "ok" OR status STREQUAL "slow"))
    string(JSON line SET "${line}" extra model "{\"predicted_ms\": 7.5, \"interval_ms\": [6, 9], \"p_fail\": 0.05}")
    string(REPLACE "\n" "" line "${line}")  # string(JSON) writes it indented over lines: one line again
  endif()
  string(APPEND believed "${line}\n")
endforeach()
file(WRITE "${WORK}/believed.jsonl" "${believed}")
run("report, model beliefs" "${TUNER}" report --spec "${DATA}/spec.json" --results "${WORK}/believed.jsonl"
    --out "${WORK}/model.html" --chartjs "${chartjs}")
check_page(model "${WORK}/model.html" 12 "Predicted vs measured" "measured / predicted" "7.5 ms (6 to 9)")
file(READ "${WORK}/model.dom.html" model_dom)
if(NOT model_dom MATCHES "<section id=\"model\"")
  string(APPEND failed "model (${WORK}/model.dom.html): no section model\n")
endif()

if(NOT failed STREQUAL "")
  message(FATAL_ERROR "${failed}")
endif()
message(STATUS "report_browser_test: the tuning, replay and tables-only reports rendered in ${chromium}")

// The Prometheus range-query answer as observe reads it (probes/telemetry/prometheus_api.hpp): series and
// their points, the API's error object, a series limit, and the regex literal for node names.
#include <gtest/gtest.h>

#include "probes/telemetry/prometheus_api.hpp"

namespace gpuqual::probes {
namespace {

TEST(ObservePrometheusApi, ReadsAMatrix) {
  const auto r = parse_query_range("up", R"({"status":"success","data":{"resultType":"matrix","result":[
    {"metric":{"Hostname":"n1","gpu":"0"},"values":[[1800000000,"1"],[1800000015.5,"+Inf"],[1800000030,"0.25"]]}]}})",
                                   200, 10);
  ASSERT_EQ(r.error, "");
  ASSERT_EQ(r.series.size(), 1u);
  EXPECT_EQ(r.series[0].label("gpu"), "0");
  ASSERT_EQ(r.series[0].points.size(), 2u);  // +Inf is not a reading
  EXPECT_DOUBLE_EQ(r.series[0].points[1].t, 1800000030);
  EXPECT_DOUBLE_EQ(r.series[0].points[1].v, 0.25);
}

TEST(ObservePrometheusApi, ErrorsAreNamed) {
  EXPECT_EQ(
      parse_query_range("x{", R"({"status":"error","errorType":"bad_data","error":"parse error"})", 400, 10)
          .error,
      "HTTP 400: bad_data: parse error");
  EXPECT_NE(parse_query_range("x", "<html>", 502, 10).error.find("not JSON"), std::string::npos);
  EXPECT_NE(
      parse_query_range("x", R"({"status":"success","data":{"resultType":"vector","result":[]}})", 200, 10)
          .error.find("not a range query"),
      std::string::npos);
  const auto many = parse_query_range(
      "x",
      R"({"status":"success","data":{"resultType":"matrix","result":[{"metric":{},"values":[]},{"metric":{},"values":[]}]}})",
      200, 1);
  EXPECT_NE(many.error.find("more than 1 series"), std::string::npos);
  EXPECT_TRUE(many.series.empty());
}

TEST(ObservePrometheusApi, UnreachableServerIsAnErrorNotAThrow) {
  const auto r = query_range(PrometheusClient{"http://127.0.0.1:1", 2, 10}, "up", observe::Window{0, 60, 15});
  EXPECT_NE(r.error.find("unreachable"), std::string::npos) << r.error;
  EXPECT_EQ(r.query, "up");
}

TEST(ObservePrometheusApi, RegexLiteral) {
  EXPECT_EQ(promql_regex_literal("gpu-node-1.example"), R"(gpu-node-1\\.example)");
  EXPECT_EQ(promql_regex_literal("a|b"), R"(a\\|b)");
}

}  // namespace
}  // namespace gpuqual::probes

#include "util/hash.hpp"

#include <algorithm>
#include <boost/uuid/name_generator_sha1.hpp>
#include <boost/uuid/uuid.hpp>
#include <boost/uuid/uuid_io.hpp>

namespace adaexplore {

std::string content_hash(const std::string& data) {
  static const boost::uuids::uuid ns =
      boost::uuids::name_generator_sha1(boost::uuids::uuid{})("adaexplore");
  boost::uuids::name_generator_sha1 gen(ns);
  std::string s = boost::uuids::to_string(gen(data.data(), data.size()));
  s.erase(std::remove(s.begin(), s.end(), '-'), s.end());
  return s;
}

}  // namespace adaexplore

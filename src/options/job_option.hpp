#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "strategy/job_spec.hpp"

namespace distsim::options {

//! The kinds of value a job setting takes; every reader parses them the same way (parse_value).
enum class ValueType {
  positive_integer,     //!< a whole number of at least 1; zero means nothing for any job setting
  boolean,              //!< true or false; on the command line the flag alone means true
  text,                 //!< a name or a file path
  choice,               //!< one of the option's allowed values
  positive_number,      //!< a finite real number above 0: 15e12, 2.5
  non_negative_number,  //!< a finite real number of at least 0
};

using Value = std::variant<int, bool, std::string, double>;

//! Turns the names a user gives for the model, the GPU and the cluster into specs (built-in
//! catalog entries or files). The edges supply it, so that this module touches no files.
struct SpecResolvers {
  std::function<model::ModelSpec(const std::string&)> model;
  std::function<cluster::GpuSpec(const std::string&)> gpu;
  std::function<cluster::ClusterSpec(const std::string&)> cluster;
};

//! One job setting, defined once for every reader (the CLI's flags, job files, the case runner,
//! the calibration reader) and every writer that echoes a job.
struct JobOption {
  std::string key;   //!< the job-file key and the option's name: "micro_batch_size"
  std::string flag;  //!< the command-line flag: "--micro-batch-size"
  ValueType type = ValueType::text;
  //! The value used when no reader gives one, as text; empty when a rule of job assembly
  //! decides instead (the help text says which rule).
  std::string default_value;
  std::vector<std::string> allowed;  //!< the values of a choice
  //! Other names of a choice's values (the framework's own: Megatron's --fp8-recipe values,
  //! TransformerEngine recipe classes, DeepSpeed's stage names): {alias, allowed value}.
  std::vector<std::pair<std::string, std::string>> value_aliases;
  //! Values of the setting that frameworks have and distsim does not model: {name, why}; a reader
  //! refuses them with the reason instead of calling them unknown.
  std::vector<std::pair<std::string, std::string>> unmodelled_values;
  std::string noun;  //!< what a choice's value is, for messages: "recomputation"
  std::string help;
  //! Settings that cannot be given together with this one: a later source that gives this one
  //! drops them from an earlier source (a flag --tp drops a job file's strategy).
  std::vector<std::string> excludes;
  //! A text value's own rule: the problem with it, or "" (the strategy notation's form).
  std::function<std::string(const std::string&)> check;
  //! Writes the value into the job (the resolvers turn names into specs).
  std::function<void(const Value&, strategy::JobSpec&, const SpecResolvers&)> apply;
  //! The value as the job holds it, so that a job can be echoed as a job file.
  std::function<Value(const strategy::JobSpec&)> read;
  //! Whether the setting means anything for this job (expert-parallel sizes only for a
  //! mixture-of-experts model); the echo leaves out a setting that does not, so that a job's echo
  //! names only what shapes it. Empty: the setting always applies.
  std::function<bool(const strategy::JobSpec&)> applies;
  //! The values a strategy search tries when the user leaves this setting free, for a job that
  //! holds the candidate's values of the settings before it in the table. Empty: a search never
  //! varies the setting (it is one value of the job, as for simulate). A searched setting's
  //! `apply` sets the strategy only: a search shares one model and cluster among its candidates.
  std::function<std::vector<Value>(const strategy::JobSpec&)> search_values;
  //! A search varies this setting only over listed values (two or more, or `all`: every allowed
  //! one); otherwise it stays a setting of the job, the same for every candidate (precision, sharding).
  bool searched_when_listed = false;
  //! Why a search refuses the setting, or empty when it takes it: a search ranks candidates by the
  //! iteration of healthy, identical GPUs, and some settings describe something else.
  std::string search_refusal;
  //! The job file's mapping the setting is written under ("goodput": `goodput: {tokens: 15e12}`),
  //! or empty for the top level. Flags and Python keywords are the key alone either way.
  std::string section;
};

//! The option table in the order job assembly applies it: the model before its sequence length,
//! the cluster before the GPU that replaces its GPU, the parallel sizes before the node count
//! that defaults to them.
const std::vector<JobOption>& job_options();

//! The option with this key, or nullptr.
const JobOption* find_option(std::string_view key);

//! The option with this key; the key must be in the table (a programming error otherwise).
const JobOption& option(std::string_view key);

//! Every key of the table, in table order.
std::vector<std::string> option_keys();

//! A value parsed from text, or the problem with the text ("expected a positive integer, got
//! '0'"), without naming where the text came from: the caller names the flag or the key.
struct ParsedValue {
  Value value;
  std::string problem;
  bool ok() const { return problem.empty(); }
};

//! Parses text as a value of the option: the single definition of what each setting accepts. A
//! choice's value, its aliases and a boolean's true/false (yes/no, on/off) match by the one name
//! rule (core/name_match.hpp): "ZeRO-3" is zero3 and "True" is true.
ParsedValue parse_value(const JobOption& option, std::string_view text);

//! The value as a reader would write it: "4", "true", "flash".
std::string value_text(const Value& value);

}  // namespace distsim::options
